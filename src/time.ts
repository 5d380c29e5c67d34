/** Lengths of time in milliseconds, for every layer (core, db, doctor) that counts in days. */
export const DAY_MS = 86_400_000;
