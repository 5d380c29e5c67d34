/**
 * The Settings page's share of protection per hosting package (core/package-protection.ts):
 * the packages the panel named, each with whether it includes web protection (read-only: the
 * host sets it in the panel) beside the plan settings and plan limits the plugin keeps for
 * it, and the admin's grace period before a released package's websites are removed at the
 * provider (a runtime setting, recorded with who changed it).
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import type { PluginSettings } from '../../core/plugin-settings.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { PackagesRepo } from '../../db/packages.repo.js';
import type { LimitLayer } from '../../core/quota.js';
import { AppError } from '../../errors.js';
import { sessionAdmin } from './session.middleware.js';

export interface PackagePagesDeps {
  packages: PackagesRepo;
  accounts: Pick<AccountsRepo, 'getPlan'>;
  settings: Pick<PluginSettings, 'packageGraceDays' | 'changeSetting' | 'overrides'>;
}

/** The id of the grace field, for its label and the error summary. */
export const GRACE_FIELD_ID = 'package-grace-days';

/** What the grace field shows again when the days typed were refused. */
export interface GraceProblem {
  problem: string;
  typed: string;
}

/**
 * The page's packages section: each package with the plugin's plan and limits of the same name
 * (`layers`: the limits table the Settings page read once for all its sections).
 */
export function packagesSection(deps: PackagePagesDeps, res: Response, layers: ReadonlyMap<string, LimitLayer>, grace?: GraceProblem) {
  const format = res.locals.format as Pick<Format, 'dateTime'>;
  const t = res.locals.t as Translate;
  const override = deps.settings.overrides().package_grace_days;
  return {
    packageRows: deps.packages.listPackages().map((row) => ({
      ...row,
      seen: format.dateTime(row.seenAt),
      plan: deps.accounts.getPlan(row.name),
      limits: layers.get(`plan:${row.name}`) ?? null,
    })),
    packageGrace: {
      days: deps.settings.packageGraceDays(),
      typed: grace?.typed,
      problem: grace?.problem ?? null,
      source: override
        ? t('adminSettings.runtime.changedBy', { who: override.updatedBy, when: format.dateTime(override.updatedAt) })
        : t('packages.settings.graceDefault'),
    },
  };
}

const graceForm = z.object({ days: z.string().optional().default('') });

/** POST /settings/package-grace: the days, checked (the message next to the field), or 400 with the page again. */
export function packageGraceRoute(deps: PackagePagesDeps, renderProblem: (res: Response, grace: GraceProblem) => void) {
  const router = express.Router();
  router.post('/settings/package-grace', (req: Request, res: Response) => {
    const t = res.locals.t as Translate;
    const parsed = graceForm.safeParse(req.body ?? {});
    if (!parsed.success) throw new AppError('BAD_REQUEST', t('adminSettings.cannotRead'));
    const typed = parsed.data.days.trim();
    const days = /^\d{1,3}$/.test(typed) ? Number(typed) : Number.NaN;
    if (!(days >= 0 && days <= 365)) return renderProblem(res, { problem: t('packages.settings.graceInvalid', { max: 365 }), typed });
    deps.settings.changeSetting('package_grace_days', days, `admin:${sessionAdmin(req)}`);
    res.redirect(303, '/admin/settings?saved=package-grace#packages');
  });
  return router;
}
