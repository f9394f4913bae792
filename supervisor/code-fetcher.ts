/**
 * Gets a topology's code onto this node. Local mode stores a path (the module
 * is already here); cluster mode stores a bundle in nimbus's blob store,
 * which is downloaded once, checked against its sha256, inflated to
 * `<localdir>/stormdist/<topologyId>/topology.mjs` and cached. The bundle
 * keeps `hstorm` external, so `<localdir>/node_modules/hstorm` links to this
 * installation for its import to resolve.
 *
 * With supervisor.worker.user the code stays the supervisor's (a worker may
 * read it, not change it: group of the worker user, 0750 / 0640), and the
 * `resources/` directory beside it, where a worker writes out the scripts of
 * its shell components (topology-sdk/internal/multilang-resources.ts), is the
 * worker user's, 0750.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { ClusterState } from '../common/cluster-state.js';
import type { Logger } from '../common/logger.js';
import { nimbusAddress } from './nimbus-address.js';
import type { StormBase } from '../common/storm-base.js';
import { BundleDownloadError } from './errors.js';
import { packageRoot } from '../common/package-root.js';
import { RESOURCES_DIR } from '../common/resources-home.js';

export interface CodeFetcherOptions {
  state: ClusterState;
  localDir: string;
  /** Used when no nimbus has registered itself in the store. */
  nimbusHost: string;
  nimbusPort: number;
  log: Logger;
  fetchImpl?: typeof fetch;
  /** Largest inflated bundle (`nimbus.bundle.max.inflated.mb`, bytes): nimbus refuses larger, this guards the node too. */
  maxInflatedBytes: number;
  /** supervisor.worker.user: the user workers run as, who must read the code and write its resources. */
  workerUser?: { uid: number; gid: number } | null;
}

const gunzipAsync = promisify(gunzip);

export class CodeFetcher {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly o: CodeFetcherOptions) {}

  /** Absolute path of the module a worker of `storm` loads. */
  modulePathFor(storm: StormBase): Promise<string> {
    const code = storm.code;
    if (code.kind === 'path') return Promise.resolve(code.path);
    // One download per topology even when several of its workers start at once.
    let p = this.inflight.get(storm.id);
    if (!p) {
      p = this.bundle(storm.id, code.sha256).finally(() => this.inflight.delete(storm.id));
      this.inflight.set(storm.id, p);
    }
    return p;
  }

  dirOf(topologyId: string): string {
    return join(this.o.localDir, 'stormdist', topologyId);
  }

  /** Topologies whose code is cached on this node. */
  async cached(): Promise<string[]> {
    try {
      return (await readdir(join(this.o.localDir, 'stormdist'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {
      return [];
    }
  }

  /** Drops the cached code of topologies no longer assigned here (killed, or moved away); a download in flight is kept. */
  async prune(keep: ReadonlySet<string>): Promise<string[]> {
    const dropped: string[] = [];
    for (const id of await this.cached()) {
      if (keep.has(id) || this.inflight.has(id)) continue;
      await rm(this.dirOf(id), { recursive: true, force: true });
      dropped.push(id);
    }
    if (dropped.length > 0) this.o.log.info({ topologies: dropped }, 'deleted the code of topologies no longer assigned here');
    return dropped;
  }

  private async bundle(topologyId: string, sha256: string): Promise<string> {
    const dir = this.dirOf(topologyId);
    const file = join(dir, 'topology.mjs');
    const marker = join(dir, 'bundle.sha256');
    await this.ensureHstormLink();
    if ((await readFile(marker, 'utf8').catch(() => '')) === sha256) {
      await this.grantWorker(dir, file);
      return file;
    }

    const { host, port } = await nimbusAddress(this.o.state, { host: this.o.nimbusHost, port: this.o.nimbusPort });
    const url = `http://${host}:${port}/api/v1/topologies/${encodeURIComponent(topologyId)}/bundle`;
    let gz: Buffer;
    try {
      const res = await (this.o.fetchImpl ?? fetch)(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      gz = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      throw new BundleDownloadError(`cannot download the bundle of ${topologyId} from ${url}: ${(err as Error).message}`, topologyId, { cause: err });
    }
    const actual = createHash('sha256').update(gz).digest('hex');
    if (actual !== sha256) {
      throw new BundleDownloadError(`bundle of ${topologyId} from ${url} hashes to ${actual}, expected ${sha256}`, topologyId);
    }
    let code: Buffer;
    try {
      // Off the event loop (zlib's thread pool), and bounded: a bundle inflating past the limit is refused.
      code = await gunzipAsync(gz, { maxOutputLength: this.o.maxInflatedBytes });
    } catch (err) {
      throw new BundleDownloadError(`bundle of ${topologyId} is not valid gzip: ${(err as Error).message}`, topologyId, { cause: err });
    }
    await mkdir(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, code);
    await rename(tmp, file);
    await writeFile(marker, sha256);
    await this.grantWorker(dir, file);
    this.o.log.info({ topology: topologyId, bytes: code.length, sha256 }, 'topology bundle downloaded');
    return file;
  }

  /** What a worker running as supervisor.worker.user needs of its topology's directory (see the header). */
  private async grantWorker(dir: string, file: string): Promise<void> {
    const user = this.o.workerUser;
    if (!user) return;
    // -1: the owner stays the supervisor's user.
    await chown(dir, -1, user.gid);
    await chmod(dir, 0o750);
    await chown(file, -1, user.gid);
    await chmod(file, 0o640);
    const resources = join(dir, RESOURCES_DIR);
    await mkdir(resources, { recursive: true });
    await chown(resources, user.uid, user.gid);
    await chmod(resources, 0o750);
  }


  /** `<localdir>/node_modules/hstorm` → the installed package, so bundles resolve `import 'hstorm'`. */
  private async ensureHstormLink(): Promise<void> {
    const dir = join(this.o.localDir, 'node_modules');
    const link = join(dir, 'hstorm');
    const target = packageRoot();
    const st = await lstat(link).catch(() => null);
    if (st?.isSymbolicLink() && (await readlink(link)) === target) return;
    if (st) await rm(link, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    try {
      await symlink(target, link, 'dir');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
