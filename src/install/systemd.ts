/**
 * `wpp install systemd`: the service alone, for a panel without an installer of its own
 * (its hooks call `wpp hook emit` or POST /hooks/events). Every panel's plan includes it.
 */
import type { InstallPlan } from './artefacts.js';
import { commonArtefacts, commonNextSteps, type InstallSettings, type InstallSource } from './common.js';

export function systemdPlan(source: InstallSource, settings: InstallSettings): InstallPlan {
  return { panel: 'systemd', artefacts: commonArtefacts(source, settings), nextSteps: commonNextSteps };
}
