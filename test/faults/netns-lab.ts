/**
 * Hosts on one machine for the partition trials (issue 28): each host is a
 * network namespace with one veth pair into a bridge in the root namespace,
 * so hosts reach each other — and the test process reaches them — through the
 * bridge, each at its own address on a private /24. A fault is an iptables
 * rule inside a host's own namespace (never in the root namespace, which the
 * machine's other work shares): `cut(host, peers)` drops everything between
 * the host and those addresses, silently, as a pulled cable or a broken switch
 * does; `heal(host)` removes every such rule.
 *
 * Needs root, iproute2's `ip netns` and iptables; `unavailableReason()` says
 * why not when the machine cannot (tests skip with that reason printed).
 * `destroy()` removes the namespaces (their veth ends go with them) and the
 * bridge; an exit hook does the same if mocha leaves without `after`.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface LabHost {
  name: string;
  /** The network namespace's name. */
  ns: string;
  /** The host's address on the lab's bridge. */
  address: string;
}

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

const liveLabs = new Set<NetLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.destroy();
});

export class NetLab {
  readonly hosts = new Map<string, LabHost>();
  private destroyed = false;

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

  /** Removes every rule `cut` put in `name`'s namespace. */
  heal(name: string): void {
    this.exec(name, 'iptables', ['-F', 'INPUT']);
    this.exec(name, 'iptables', ['-F', 'OUTPUT']);
  }

  /** Removes the namespaces, their veth pairs and the bridge; safe to call twice. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    liveLabs.delete(this);
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
