/**
 * The ephemeral ZkPaths.nimbus node telling supervisors and clients where the
 * running nimbus serves HTTP. After a crash the previous nimbus's node lives
 * on until its session times out; rather than fight over it, a new nimbus
 * waits for it to vanish (exists-watch) and then takes it.
 */
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { encodeJson } from '../common/cluster-state/json-node.js';
import type { Logger } from '../common/logger.js';
import type { NimbusInfo } from '../common/record-schemas.js';
import { ZkPaths } from '../common/zk-paths.js';

export class NimbusRegistration {
  private stopped = false;

  constructor(
    private readonly state: ClusterState,
    private readonly advertise: { host: string; port: number },
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.tryCreate();
  }

  stop(): void {
    this.stopped = true;
  }

  private async tryCreate(): Promise<void> {
    if (this.stopped) return;
    const info: NimbusInfo = { ...this.advertise, startedAt: Date.now(), version: 1 };
    try {
      await this.state.create(ZkPaths.nimbus, encodeJson(info), { mode: 'ephemeral' });
      this.log.info(this.advertise, 'registered as the running nimbus');
    } catch (err) {
      if (!isStateError(err, 'NODE_EXISTS')) throw err;
      this.log.warn('another nimbus node exists (a previous nimbus whose session has not expired yet?); waiting for it to go');
      const stat = await this.state.exists(ZkPaths.nimbus, (event) => {
        if (event.type === 'deleted') this.tryCreate().catch((e: unknown) => this.log.warn({ err: e }, 'could not register nimbus'));
      });
      if (!stat) await this.tryCreate();
    }
  }
}
