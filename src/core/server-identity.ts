/**
 * Which panel server this is, for everything that tells servers apart (issue 23): the tag each
 * website carries at the provider (accounts that move between servers), the fleet database's
 * rows (budget, settings, the "All servers" pages). The id is generated once and kept in the
 * plugin's own SQLite, beside its other facts: the server's names repeat across a fleet (web1
 * on two racks) and change (a host renamed), its id does neither. A server restored from its
 * backup is the same server and keeps it; a new server, even one given a copied configuration,
 * gets its own.
 */
import { randomUUID } from 'node:crypto';

export interface ServerIdentity {
  /** Stable for the life of the data folder: `srv-` and a random UUID. */
  serverId: string;
  /** The server's name as shown (WPP_SERVER_NAME, else the hostname): may change. */
  name: string;
}

/** Where the id is kept: the plugin's facts (the kv table); `claimFact` stores a value only if none is there. */
export interface ServerIdentityFacts {
  claimFact(key: string, value: string): string;
}

export const SERVER_ID_FACT = 'server_id';

/** The server's id, created at the first call on a data folder; processes starting together agree on one. */
export function serverIdentity(facts: ServerIdentityFacts, name: string, newId: () => string = randomUUID): ServerIdentity {
  return { serverId: facts.claimFact(SERVER_ID_FACT, `srv-${newId()}`), name };
}
