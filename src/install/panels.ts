/** The installers `wpp install` knows, by panel name. */
import type { InstallPlan } from './artefacts.js';
import type { InstallSettings, InstallSource } from './common.js';
import { cpanelPlan } from './cpanel.js';
import { directadminPlan } from './directadmin.js';
import { pleskPlan } from './plesk.js';
import { systemdPlan } from './systemd.js';
import { virtualminPlan } from './virtualmin.js';

export type PlanBuilder = (source: InstallSource, settings: InstallSettings) => InstallPlan;

export const INSTALLERS = {
  systemd: systemdPlan,
  cpanel: cpanelPlan,
  directadmin: directadminPlan,
  plesk: pleskPlan,
  virtualmin: virtualminPlan,
} satisfies Record<string, PlanBuilder>;

export type InstallTarget = keyof typeof INSTALLERS;
export const INSTALL_TARGETS = Object.keys(INSTALLERS) as InstallTarget[];
