/** ANSI styling, only for a terminal and never when NO_COLOR is set (https://no-color.org). */
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
}

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const on = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
    cyan: wrap(36, 39),
  };
}
