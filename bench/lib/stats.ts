/** Small statistics for benchmark rounds. */

/** The middle value (the upper middle of an even count); 0 for none. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The p-th percentile (0..100) by nearest rank of an already sorted array; 0 for none. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

export function percentile(values: number[], p: number): number {
  return percentileSorted(Float64Array.from(values).sort(), p);
}

export const round1 = (value: number): number => Math.round(value * 10) / 10;
