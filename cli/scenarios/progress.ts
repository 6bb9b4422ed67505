/**
 * Progress for people. With one scenario at a time, step lines appear as steps end; with several in
 * parallel, each scenario is printed whole when it ends. On a TTY a live last line shows the running
 * step, and a bar when there are several scenarios; elsewhere (a CI log) a line names what is still
 * running whenever nothing was printed for a while.
 */
import {
  coloured,
  describeExchange,
  describeFailure,
  plain,
  stepLabel,
  stepLine,
  summaryTable,
  type Style,
} from './report-text.ts';
import type { RunEvent, RunReport, StepResult } from './runner.ts';
import type { Scenario } from './types.ts';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export class ProgressPrinter {
  private readonly style: Style;
  private readonly live: boolean;
  private readonly running = new Map<Scenario, string>();
  private readonly buffered = new Map<Scenario, string[]>();
  private total = 0;
  private done = 0;
  private failed = 0;
  private liveShown = false;
  private readonly started = new Map<Scenario, number>();
  private lastWrite = Date.now();
  private heartbeat: NodeJS.Timeout | undefined;
  /** Show the request and response of passed steps too. */
  private readonly verbose: boolean;
  /** Off a terminal: after this long without output, a line says what is still running. */
  private readonly quietMs: number;

  constructor(
    private readonly out: ProgressOutput,
    private readonly streaming: boolean,
    env: Record<string, string | undefined> = process.env,
    { verbose = false, quietMs = 10_000 }: { verbose?: boolean; quietMs?: number } = {},
  ) {
    this.verbose = verbose;
    this.quietMs = quietMs;
    this.live = out.isTTY === true;
    this.style = this.live && env.NO_COLOR === undefined ? coloured : plain;
    if (!this.live) {
      this.heartbeat = setInterval(() => this.stillRunning(), Math.min(1000, quietMs));
      this.heartbeat.unref();
    }
  }

  readonly handle = (event: RunEvent): void => {
    if (event.type === 'run-start') {
      this.total = event.scenarios.length;
      return;
    }
    const key = event.scenario;
    switch (event.type) {
      case 'scenario-start':
        this.buffered.set(key, [`${event.scenario.name}  ${this.style.dim(event.scenario.file)}`]);
        this.flush(key);
        break;
      case 'step-start':
        this.running.set(key, `${event.scenario.name} › ${event.step.name ?? event.step.id}`);
        this.started.set(key, Date.now());
        break;
      case 'step-end':
        this.running.delete(key);
        this.started.delete(key);
        this.buffered.get(key)?.push(...this.stepLines(event.result, labelWidth(event.scenario)));
        this.flush(key);
        break;
      case 'scenario-end':
        this.done += 1;
        if (event.result.status !== 'passed') this.failed += 1;
        this.buffered.get(key)?.push('');
        this.flush(key, true);
        this.buffered.delete(key);
        break;
    }
    this.drawLive();
  };

  finish(report: RunReport): void {
    this.close();
    this.clearLive();
    this.write(`${summaryTable(report, this.style)}\n`);
  }

  /** Stops the timer (finish does it too). */
  close(): void {
    clearInterval(this.heartbeat);
  }

  private write(text: string): void {
    this.out.write(text);
    this.lastWrite = Date.now();
  }

  /** Off a terminal, after a quiet spell: what runs, and for how long. */
  private stillRunning(): void {
    const now = Date.now();
    if (this.running.size === 0 || now - this.lastWrite < this.quietMs) return;
    const running = [...this.running].map(
      ([key, label]) => `${label} (${Math.round((now - this.started.get(key)!) / 1000)} s)`,
    );
    const done = this.total > 1 ? `${this.done}/${this.total} scenarios done; ` : '';
    this.write(`  … ${done}running ${running.join(', ')}\n`);
  }

  private stepLines(step: StepResult, width: number): string[] {
    const lines = [stepLine(step, this.style, width)];
    if (step.status === 'failed') lines.push(...describeFailure(step, this.style).map((line) => `      ${line}`));
    else if (this.verbose && step.status === 'passed')
      lines.push(...describeExchange(step).map((line) => `      ${line}`));
    return lines;
  }

  /** Prints what a scenario has accumulated: at once when streaming, at its end otherwise. */
  private flush(key: Scenario, ended = false): void {
    if (!this.streaming && !ended) return;
    const lines = this.buffered.get(key) ?? [];
    if (lines.length === 0) return;
    this.clearLive();
    this.write(`${lines.join('\n')}\n`);
    lines.length = 0;
  }

  private drawLive(): void {
    if (!this.live) return;
    const running = [...this.running.values()];
    let line: string;
    if (this.total > 1) {
      const width = 20;
      const filled = Math.round((this.done / this.total) * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
      const failed = this.failed > 0 ? ` ${this.failed} failed` : '';
      line = `${bar} ${this.done}/${this.total}${failed}  ${running.join(', ')}`;
    } else {
      line = running.length > 0 ? `  … ${running[0]}` : '';
    }
    this.clearLive();
    // The live line has no colour codes, so cutting it to the terminal width is safe.
    const max = (this.out.columns ?? 100) - 1;
    this.out.write(line.length > max ? `${line.slice(0, max - 1)}…` : line);
    this.liveShown = line !== '';
  }

  private clearLive(): void {
    if (this.liveShown) this.out.write('\r\x1b[2K');
    this.liveShown = false;
  }
}

const labelWidth = (scenario: Scenario) => Math.max(...scenario.steps.map((step) => stepLabel(step).length));
