/**
 * Hosts on one machine for the partition trials (issue 28): each host is a
 * network namespace with one veth pair into a bridge in the root namespace,
 * so hosts reach each other — and the test process reaches them — through the
 * bridge, each at its own address on a private /24. A fault is an iptables
 * rule inside a host's own namespace (never in the root namespace, which the
 * machine's other work shares): `cut(host, peers)` drops everything between
 * the host and those addresses, silently, as a pulled cable or a broken switch
 * does; `degrade(host, link)` makes what it sends slow and lossy through an
 * NFQUEUE delayer (nfqueue-delayer.py; this kernel has no netem); `heal(host)`
 * removes every such rule and stops the delayer.
 *
 * Needs root, iproute2's `ip netns` and iptables; `unavailableReason()` says
 * why not when the machine cannot (tests skip with that reason printed).
 * `destroy()` removes the namespaces (their veth ends go with them) and the
 * bridge; an exit hook does the same if mocha leaves without `after`.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export interface LabHost {
  name: string;
  /** The network namespace's name. */
  ns: string;
  /** The host's address on the lab's bridge. */
  address: string;
}

/** The slow-link delayer (Python, ctypes on Debian's libnetfilter-queue1): the source file, beside this one's source. */
const DELAYER = fileURLToPath(new URL('../../../test/faults/nfqueue-delayer.py', import.meta.url));

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why this machine cannot build the lab, or null when it can. */
export function unavailableReason(): string | null {
  if (process.platform !== 'linux') return `network namespaces are Linux-only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (run as root to get the partition trials)';
  const probe = `hsprobe${randomBytes(3).toString('hex')}`;
  try {
    run('ip', ['netns', 'add', probe]);
  } catch (err) {
    return `\`ip netns add\` failed: ${(err as Error).message.split('\n')[0]}`;
  }
  try {
    run('ip', ['netns', 'exec', probe, 'iptables', '-L', '-n']);
  } catch (err) {
    return `iptables does not run inside a namespace (apt-get install iptables): ${(err as Error).message.split('\n')[0]}`;
  } finally {
    run('ip', ['netns', 'del', probe]);
  }
  return null;
}

/** Why `degrade` cannot run here (no python3, or no libnetfilter-queue1), or null when it can. */
export function slowLinkUnavailableReason(): string | null {
  try {
    run('python3', ['-c', "import ctypes, ctypes.util; ctypes.CDLL(ctypes.util.find_library('netfilter_queue') or 'libnetfilter_queue.so.1')"]);
    return null;
  } catch (err) {
    return `the slow-link delayer needs python3 and libnetfilter-queue1 (apt-get install python3 libnetfilter-queue1): ${(err as Error).message.split('\n')[0]}`;
  }
}

const liveLabs = new Set<NetLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.destroy();
});

export class NetLab {
  readonly hosts = new Map<string, LabHost>();
  private destroyed = false;
  /** The NFQUEUE delayer of each degraded host (nfqueue-delayer.py), and its whole output once it exited. */
  private readonly delayers = new Map<string, { process: ChildProcess; exited: Promise<string> }>();

  private constructor(
    /** Short random id in every name the lab creates (interface names are at most 15 bytes). */
    readonly id: string,
    readonly bridge: string,
    /** The first three octets of the lab's /24. */
    readonly prefix: string,
  ) {}

  /** The root namespace's address on the bridge: where the test process's own servers are reached from the hosts. */
  get gateway(): string {
    return `${this.prefix}.1`;
  }

  /** Builds the bridge and one namespace per name, each with an address, `lo` up and a route to the others. */
  static create(names: readonly string[]): NetLab {
    const id = randomBytes(2).toString('hex');
    const lab = new NetLab(id, `hsbr${id}`, NetLab.freePrefix());
    liveLabs.add(lab);
    try {
      run('ip', ['link', 'add', lab.bridge, 'type', 'bridge']);
      run('ip', ['addr', 'add', `${lab.gateway}/24`, 'dev', lab.bridge]);
      run('ip', ['link', 'set', lab.bridge, 'up']);
      names.forEach((name, i) => lab.addHost(name, i));
      return lab;
    } catch (err) {
      lab.destroy();
      throw err;
    }
  }

  /** A /24 in 10.0.0.0/8 that no interface of this machine is on. */
  private static freePrefix(): string {
    const used = run('ip', ['-o', '-4', 'addr', 'show']);
    for (let attempt = 0; attempt < 100; attempt++) {
      const prefix = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 250)}`;
      if (!used.includes(` ${prefix}.`)) return prefix;
    }
    throw new Error('no free 10.x.y.0/24 for the namespace lab');
  }

  private addHost(name: string, index: number): void {
    const ns = `hs${this.id}-${name}`;
    const outer = `hv${this.id}${index}`;
    const address = `${this.prefix}.${10 + index}`;
    run('ip', ['netns', 'add', ns]);
    this.hosts.set(name, { name, ns, address });
    run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
    run('ip', ['link', 'set', outer, 'master', this.bridge]);
    run('ip', ['link', 'set', outer, 'up']);
    this.exec(name, 'ip', ['addr', 'add', `${address}/24`, 'dev', 'eth0']);
    this.exec(name, 'ip', ['link', 'set', 'eth0', 'up']);
    this.exec(name, 'ip', ['link', 'set', 'lo', 'up']);
  }

  host(name: string): LabHost {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name} in the lab (hosts: ${[...this.hosts.keys()].join(', ')})`);
    return h;
  }

  /** Runs a command inside a host's namespace and returns its output. */
  exec(name: string, cmd: string, args: string[]): string {
    return run('ip', ['netns', 'exec', this.host(name).ns, cmd, ...args]);
  }

  /** Starts a process inside a host's namespace (`ip netns exec` execs it: the child's pid is the process's). */
  spawn(name: string, cmd: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    return spawn('ip', ['netns', 'exec', this.host(name).ns, cmd, ...args], options);
  }

  /**
   * Drops every packet between `name` and each of `peers` (host names, or addresses such as the gateway), both ways,
   * inside `name`'s namespace: what was in flight and everything after it vanishes without a reset.
   */
  cut(name: string, peers: readonly string[]): void {
    for (const p of peers) {
      const address = this.hosts.get(p)?.address ?? p;
      this.exec(name, 'iptables', ['-I', 'INPUT', '-s', address, '-j', 'DROP']);
      this.exec(name, 'iptables', ['-I', 'OUTPUT', '-d', address, '-j', 'DROP']);
    }
  }

  /** Drops what `name` receives from each of `peers`, inside its namespace; what it sends still leaves (a one-way fault). */
  cutInbound(name: string, peers: readonly string[]): void {
    for (const p of peers) this.exec(name, 'iptables', ['-I', 'INPUT', '-s', this.hosts.get(p)?.address ?? p, '-j', 'DROP']);
  }

  /**
   * Makes what `name` sends slow and lossy, as netem's `delay D J loss L` on its interface would (this kernel has no
   * netem): its outgoing packets go to an NFQUEUE in its namespace, where nfqueue-delayer.py holds each for
   * `delayMs` ± `jitterMs` and drops `loss` of them. Resolves once the delayer is bound and the rule is in.
   */
  async degrade(name: string, link: { delayMs: number; jitterMs: number; loss: number }): Promise<void> {
    const queue = 7;
    const args = [DELAYER, String(queue), String(link.delayMs), String(link.jitterMs), String(link.loss)];
    const delayer = this.spawn(name, 'python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<string>((resolve) => delayer.once('exit', () => resolve(output)));
    await new Promise<void>((resolve, reject) => {
      const read = (d: Buffer): void => {
        output += d.toString();
        if (output.includes('ready')) resolve();
      };
      delayer.stdout!.on('data', read);
      delayer.stderr!.on('data', read);
      void exited.then(() => reject(new Error(`nfqueue-delayer.py exited before it was ready: ${output.trim()}`)));
    });
    this.delayers.set(name, { process: delayer, exited });
    // --queue-bypass: should the delayer die, packets pass undelayed rather than vanish.
    this.exec(name, 'iptables', ['-A', 'OUTPUT', '-o', 'eth0', '-j', 'NFQUEUE', '--queue-num', String(queue), '--queue-bypass']);
  }

  /** Removes every rule `cut` or `degrade` put in `name`'s namespace; a delayer releases what it holds and stops. */
  heal(name: string): void {
    this.exec(name, 'iptables', ['-F', 'INPUT']);
    this.exec(name, 'iptables', ['-F', 'OUTPUT']);
    this.delayers.get(name)?.process.kill('SIGTERM');
  }

  /** After `heal`: how many packets the host's delayer delayed and dropped (null if it had none, or printed no counts). */
  async delayerCounts(name: string): Promise<{ delayed: number; dropped: number } | null> {
    const d = this.delayers.get(name);
    if (!d) return null;
    this.delayers.delete(name);
    const m = /delayed (\d+) dropped (\d+)/.exec(await d.exited);
    return m ? { delayed: Number(m[1]), dropped: Number(m[2]) } : null;
  }

  /** Removes the namespaces, their veth pairs and the bridge; safe to call twice. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    liveLabs.delete(this);
    for (const d of this.delayers.values()) d.process.kill('SIGKILL');
    for (const h of this.hosts.values()) {
      try {
        run('ip', ['netns', 'del', h.ns]);
      } catch {
        // already gone
      }
    }
    try {
      run('ip', ['link', 'del', this.bridge]);
    } catch {
      // already gone
    }
  }
}
