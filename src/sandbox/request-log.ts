export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  who: string | null;
  fault: string | null;
}

/** The last `capacity` /v1.0 requests, for `GET /_sandbox/requests`. Keys are never recorded. */
export function createRequestLog(capacity = 1000) {
  const entries: LoggedRequest[] = [];
  return {
    add(entry: LoggedRequest): void {
      entries.push(entry);
      if (entries.length > capacity) entries.splice(0, entries.length - capacity);
    },
    recent: (limit: number) => entries.slice(-limit).reverse(),
    clear: () => void entries.splice(0),
  };
}
export type RequestLog = ReturnType<typeof createRequestLog>;
