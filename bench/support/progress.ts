/** A progress bar for long benchmark runs (cli-progress), silent in --json mode. */
import cliProgress from 'cli-progress';

export class BenchProgress {
  private readonly bar: cliProgress.SingleBar | null;
  private done = 0;

  constructor(name: string, steps: number, enabled: boolean) {
    this.bar = enabled
      ? new cliProgress.SingleBar(
          { format: `${name} [{bar}] {value}/{total} {step}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
          cliProgress.Presets.shades_classic,
        )
      : null;
    this.bar?.start(steps, 0, { step: '' });
  }

  /** Marks the start of the next step. */
  step(label: string): void {
    this.bar?.update(this.done++, { step: label });
  }

  stop(): void {
    this.bar?.update(this.done, { step: 'done' });
    this.bar?.stop();
  }
}
