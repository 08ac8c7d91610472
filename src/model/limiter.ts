/** Runs tasks at most `n` at once, in the order they come. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function limiter(n: number): Limiter {
  let running = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      queue.shift()?.();
    }
  };
}
