/**
 * Launch nonces and sessions of the plugin's pages (migrations/007_sessions.sql, the language: 017_session_locale.sql). Session ids
 * arrive and leave as their sha256: the repository never sees a cookie value.
 */
import type { Db } from './open.js';

/** Whose pages a session opens: a panel account's, the host admins', or a reseller's (their own customers'). */
export type SessionRole = 'customer' | 'admin' | 'reseller';

export interface StoredSession {
  idHash: string;
  role: SessionRole;
  subject: string;
  panel: string;
  /** The panel user's language tag as the launch token gave it (migrations/017_session_locale.sql); null when the panel gave none. */
  locale: string | null;
  csrfToken: string | null;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

interface SessionRow {
  id_hash: string;
  role: SessionRole;
  subject: string;
  panel: string;
  locale: string | null;
  csrf_token: string | null;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

const toSession = (row: SessionRow): StoredSession => ({
  idHash: row.id_hash,
  role: row.role,
  subject: row.subject,
  panel: row.panel,
  locale: row.locale,
  csrfToken: row.csrf_token,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  expiresAt: row.expires_at,
});

export function createSessionsRepo(db: Db) {
  const s = {
    useNonce: db.prepare('INSERT OR IGNORE INTO launch_nonces (nonce, expires_at) VALUES (?, ?)'),
    pruneNonces: db.prepare('DELETE FROM launch_nonces WHERE expires_at < ?'),
    insert: db.prepare(
      `INSERT INTO sessions (id_hash, role, subject, panel, locale, csrf_token, created_at, last_seen_at, expires_at)
       VALUES (@idHash, @role, @subject, @panel, @locale, @csrfToken, @createdAt, @lastSeenAt, @expiresAt)`,
    ),
    get: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id_hash = ?'),
    touch: db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?'),
    setCsrf: db.prepare('UPDATE sessions SET csrf_token = ? WHERE id_hash = ?'),
    remove: db.prepare('DELETE FROM sessions WHERE id_hash = ?'),
    removeOf: db.prepare('DELETE FROM sessions WHERE role = ? AND subject = ?'),
    prune: db.prepare('DELETE FROM sessions WHERE expires_at < ? OR last_seen_at < ?'),
  };
  return {
    /** Records a launch token's nonce; false when it was recorded before (a replay). Prunes expired nonces. */
    useNonce(nonce: string, expiresAt: number, now: number): boolean {
      s.pruneNonces.run(now);
      return s.useNonce.run(nonce, expiresAt).changes > 0;
    },
    createSession: (session: StoredSession) => void s.insert.run(session),
    getSession(idHash: string): StoredSession | null {
      const row = s.get.get(idHash);
      return row ? toSession(row) : null;
    },
    touchSession: (idHash: string, at: number) => void s.touch.run(at, idHash),
    setCsrfToken: (idHash: string, token: string | null) => void s.setCsrf.run(token, idHash),
    deleteSession: (idHash: string) => void s.remove.run(idHash),
    /** Ends every session of one subject of a role (a customer whose account was suspended or deleted); returns how many. */
    deleteSessionsOf: (role: SessionRole, subject: string): number => s.removeOf.run(role, subject).changes,
    /** Removes sessions past their absolute end or idle since `idleBefore`. */
    pruneSessions: (now: number, idleBefore: number) => s.prune.run(now, idleBefore).changes,
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
