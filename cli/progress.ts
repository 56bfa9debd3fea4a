// Progress on stderr, only when it is a terminal: one line redrawn in place (states,
// transitions, depth, queue, rate), prefixed by where a long command is ([3/26] spec/mutant),
// and erased before the command prints a row of its own.
import type { Progress } from '../checkers/explore/types.ts';

export interface ProgressStream {
  isTTY?: boolean;
  write(s: string): unknown;
}

export interface TerminalProgress {
  /** The explorer's callback; undefined when stderr is not a terminal. */
  onProgress?: (p: Progress) => void;
  /** What is being done, shown before the counts. */
  doing(label: string): void;
  /** Erases the line (before a row is printed, and at the end). */
  done(): void;
}

export function progressLine(p: Progress): string {
  const rate = p.elapsedMs > 0 ? Math.round((p.states / p.elapsedMs) * 1000) : 0;
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(p.states)} distinct, ${n(p.transitions)} transitions, depth ${p.depth}, queue ${n(p.queue)}, ${n(rate)} states/s`;
}

/** Draws progress on the stream when it is a terminal. */
export function terminalProgress(stream: ProgressStream = process.stderr): TerminalProgress {
  let label = '';
  let drawn = false;
  const draw = (text: string) => {
    stream.write(`\r\x1b[K${text}`);
    drawn = true;
  };
  if (!stream.isTTY) return { doing() {}, done() {} };
  return {
    onProgress(p) {
      draw(`${label}${progressLine(p)}`);
    },
    doing(what) {
      label = what ? `${what}: ` : '';
      draw(`${label}starting`);
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}
