/**
 * A connection checked out of the fleet database's pool, for the work that needs one
 * (a transaction): a connection lost while checked out is an 'error' event on the client,
 * which, unheard, would end the process; and after any failure the connection goes back as
 * broken, so the pool drops it rather than lend out one that may be mid-transaction or dead.
 */
import type pg from 'pg';

export async function withFleetClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onLost = (error: Error) => void (broken ??= error);
  client.on('error', onLost);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.off('error', onLost);
    client.release(broken);
  }
}
