/**
 * `hstorm dev-zookeeper [--port 2181] [--data-dir DIR]`: a single-node
 * ZooKeeper for development, in the foreground until SIGINT/SIGTERM, then
 * stopped cleanly. Not for production: one node, no replication.
 */
import type { Command } from 'commander';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliUsageError, HstormError } from '../../common/errors.js';
import { createLogger } from '../../common/logger.js';
import { ZooKeeperServer } from '../../common/zookeeper-server.js';
import { positiveInt } from './flag-values.js';

interface DevZooKeeperFlags {
  port: string;
  dataDir: string;
  host: string;
  quiet?: boolean;
}

export function registerDevZookeeper(program: Command): void {
  program
    .command('dev-zookeeper')
    .description('run a single-node development ZooKeeper in the foreground (needs `apt-get install zookeeper`)')
    .option('-p, --port <port>', 'client port', '2181')
    .option('--data-dir <dir>', 'where ZooKeeper keeps its data', join(homedir(), '.hstorm', 'zookeeper'))
    .option('--host <address>', 'address to listen on (0.0.0.0: every interface)', '127.0.0.1')
    .option('-q, --quiet', "hide ZooKeeper's own log (warnings and errors are shown by default)")
    .action(async (flags: DevZooKeeperFlags) => {
      const port = positiveInt('--port', flags.port);
      if (port > 65535) throw new CliUsageError(`invalid --port "${flags.port}"; allowed: 1..65535`);
      const log = createLogger('dev-zookeeper', { destination: 2 });
      const server = await ZooKeeperServer.start({
        port,
        dataDir: flags.dataDir,
        host: flags.host,
        output: flags.quiet ? 'pipe' : 'inherit',
        log,
      });
      process.stderr.write(`ZooKeeper is up on ${server.connectString} (data in ${flags.dataDir}); Ctrl-C stops it\n`);
      const signal = await new Promise<NodeJS.Signals | 'exit'>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
        void server.exited.then(() => resolve('exit'));
      });
      if (signal === 'exit') {
        throw new HstormError('HSTORM_ERR_ZOOKEEPER_START', `ZooKeeper on port ${port} exited on its own; see its output above`);
      }
      process.stderr.write(`${signal}: stopping ZooKeeper\n`);
      await server.stop();
      log.flush();
    });
}
