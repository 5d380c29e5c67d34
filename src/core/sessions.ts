/**
 * Sessions of the plugin's pages. A launch token (launch-tokens.ts) is exchanged once for a
 * server-side session; the browser holds only a random id. A session ends when idle too long,
 * at its absolute end whatever the activity, or at logout. The plugin trusts the panel's
 * signature, never the browser: who the user is comes from the session row alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SessionRole, SessionsRepo, StoredSession } from '../db/sessions.repo.js';
import { claimsSubject, LaunchTokenError, verifyLaunchToken, type LaunchClaims } from './launch-tokens.js';
import { resolveLocale, type SupportedLocale } from './locale.js';

export interface SessionPolicy {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after the launch, whatever its use. */
  absoluteMs: number;
}

/** Who a page is for: a panel account's customer, one of the host's admins, or a reseller (for their own customers). */
export type PageUser =
  | { role: 'customer'; account: string; panel: string }
  | { role: 'admin'; admin: string; panel: string }
  | { role: 'reseller'; reseller: string; panel: string };

export interface Session {
  idHash: string;
  user: PageUser;
  csrfToken: string | null;
  expiresAt: number;
  /** The pages' language: the panel's tag of the launch, resolved (de-AT → de; none or unsupported → en). */
  locale: SupportedLocale;
}

/**
 * Why a cookie named no session: stable codes for the page that asks the user to open the
 * plugin again. `wrong_role`: the cookie names a session of the other role (a customer's
 * session presented as an admin's); that session is ended, as a stolen or misused one.
 */
export type SessionEnd = 'none' | 'unknown' | 'idle' | 'expired' | 'wrong_role';

export interface SessionDeps {
  sessions: SessionsRepo;
  /** The sign-in key launch tokens are verified with (secrets.ts); never the hook secret. */
  signInKey: string;
  policy: SessionPolicy;
  now: () => number;
  /** The longest life a launch token may claim (see LAUNCH_TOKEN_MAX_AGE_MS). */
  maxTokenLifeMs?: number;
}

/** Writes of last_seen_at are spared for requests this close together: idle timeouts are minutes. */
const TOUCH_EVERY_MS = 30_000;

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

const userOf = (row: Pick<StoredSession, 'role' | 'subject' | 'panel'>): PageUser => {
  if (row.role === 'customer') return { role: 'customer', account: row.subject, panel: row.panel };
  if (row.role === 'reseller') return { role: 'reseller', reseller: row.subject, panel: row.panel };
  return { role: 'admin', admin: row.subject, panel: row.panel };
};

export function createSessionService({ sessions, signInKey, policy, now, maxTokenLifeMs }: SessionDeps) {
  return {
    /**
     * Exchanges a launch token for a new session: checks the signature and life, refuses a
     * nonce seen before (`replayed`) and a token for another role than `expectedRole`
     * (`wrong_role`). Throws LaunchTokenError; returns the cookie value to set, once.
     */
    launch(token: string, expectedRole?: SessionRole): { cookieValue: string; session: Session; claims: LaunchClaims } {
      const at = now();
      const claims = verifyLaunchToken(signInKey, token, at, maxTokenLifeMs);
      if (expectedRole && claims.role !== expectedRole) {
        throw new LaunchTokenError('wrong_role', `this sign-in link is for the ${claims.role} pages, not the ${expectedRole} pages`);
      }
      // Recorded before the session exists: of two requests racing with one token, one wins.
      if (!sessions.useNonce(claims.nonce, claims.expiresAt, at)) {
        throw new LaunchTokenError('replayed', 'this sign-in link was already used: open the page from the panel again');
      }
      const cookieValue = randomBytes(32).toString('base64url');
      const stored: StoredSession = {
        idHash: hashId(cookieValue),
        role: claims.role,
        subject: claimsSubject(claims),
        panel: claims.panel,
        locale: claims.locale ?? null,
        csrfToken: null,
        createdAt: at,
        lastSeenAt: at,
        expiresAt: at + policy.absoluteMs,
      };
      sessions.pruneSessions(at, at - policy.idleMs);
      sessions.createSession(stored);
      return {
        cookieValue,
        session: {
          idHash: stored.idHash,
          user: userOf(stored),
          csrfToken: null,
          expiresAt: stored.expiresAt,
          locale: resolveLocale(stored.locale),
        },
        claims,
      };
    },

    /**
     * The live session of `role` a cookie names, refreshed; or why there is none (an ended one
     * is deleted). A session serves only the role it was created for: the cookie's name says
     * which role is asked, never which role the session has, so a session of the other role is
     * refused and ended (`wrong_role`, with its subject for the log).
     */
    resume(cookieValue: string | undefined, role: SessionRole): { session: Session } | { ended: SessionEnd; subject?: string } {
      if (!cookieValue) return { ended: 'none' };
      const idHash = hashId(cookieValue);
      const row = sessions.getSession(idHash);
      if (!row) return { ended: 'unknown' };
      if (row.role !== role) {
        sessions.deleteSession(idHash);
        return { ended: 'wrong_role', subject: row.subject };
      }
      const at = now();
      const ended: SessionEnd | null = at >= row.expiresAt ? 'expired' : at - row.lastSeenAt >= policy.idleMs ? 'idle' : null;
      if (ended) {
        sessions.deleteSession(idHash);
        return { ended };
      }
      if (at - row.lastSeenAt >= TOUCH_EVERY_MS) sessions.touchSession(idHash, at);
      return {
        session: { idHash, user: userOf(row), csrfToken: row.csrfToken, expiresAt: row.expiresAt, locale: resolveLocale(row.locale) },
      };
    },

    storeCsrfToken: (session: Session, token: string | null) => sessions.setCsrfToken(session.idHash, token),
    end: (session: Session) => sessions.deleteSession(session.idHash),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
