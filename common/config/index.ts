export * from './config.js';
export * from './schema.js';
