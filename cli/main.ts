/**
 * The `hstorm` command. Each subcommand lives in its own file under
 * commands/ and registers itself on the commander program; this file only
 * wires them and turns errors into a message and a non-zero exit.
 */
import { Command, CommanderError } from 'commander';
import { HstormError } from '../common/errors.js';
import { registerCommands } from './commands/index.js';
import { enableSourceMaps } from '../common/ts-module.js';

export function buildProgram(): Command {
  const program = new Command('hstorm')
    .description('A Storm-like stream-processing runtime for clusters that mix CPUs and GPUs')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // Topology modules load here too (local, submit, schedule): their stack traces should name the user's lines.
  enableSourceMaps();
  const program = buildProgram();
  // With --json, a script reads the error from stdout as `{ code, message }` (docs/errors.md), not prose on stderr.
  const json = argv.slice(2).includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version exit "successfully" through here; only real usage errors are reported.
      if (json && err.exitCode !== 0) writeJsonError('HSTORM_ERR_CLI_USAGE', err.message.replace(/^error: /, ''));
      process.exitCode = err.exitCode;
      return;
    }
    if (err instanceof HstormError) {
      if (json) writeJsonError(err.code, err.message);
      else process.stderr.write(`hstorm: ${err.message} [${err.code}]\n`);
      process.exitCode = 2;
      return;
    }
    if (json) writeJsonError('HSTORM_ERR_INTERNAL', (err as Error)?.message ?? String(err), (err as Error)?.stack);
    else process.stderr.write(`hstorm: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}

function writeJsonError(code: string, message: string, stack?: string): void {
  process.stdout.write(`${JSON.stringify({ code, message, ...(stack && { stack }) })}\n`);
}
