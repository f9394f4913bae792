#!/usr/bin/env node
// The `hstorm` command: the compiled CLI lives in dist/ (built by `npm install` through `prepare`).
import { main } from '../dist/cli/main.js';

await main(process.argv);
