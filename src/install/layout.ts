/**
 * Where an installed wpp lives on a server. Fixed paths, the same for every panel, so the
 * hooks, the pages, the service and `wpp doctor` all agree without being told.
 */
export const LAYOUT = {
  /** The database, the generated secrets and the API-key key file: kept by uninstall unless --purge. */
  dataDir: '/var/lib/wpp',
  /**
   * What each `wpp install <panel>` wrote and registered, read by uninstall and doctor. Root
   * replays the tool calls it lists, so it is root's alone: not in the data folder, which the
   * service user owns.
   */
  recordDir: '/etc/wpp/install',
  /** Where records were before the service user: moved to recordDir by the next install. */
  legacyRecordDir: '/var/lib/wpp/install',
  /** The system user `wpp serve` runs as; owns the data folder, may read the settings. */
  serviceUser: 'wpp',
  configDir: '/etc/wpp',
  /** WPP_* settings for the service, the hooks and the pages; the administrator's file once written. */
  envFile: '/etc/wpp/env',
  libDir: '/usr/local/lib/wpp',
  /**
   * Root's copies of the database taken by an upgrade from a release before its migrations run
   * (plugin.sqlite.before-<version>-<time>), for `wpp rollback`. Data: kept by uninstall. Not in
   * the data folder: that one is the service user's, and root writes no file where it could
   * put a link.
   */
  upgradeBackupDir: '/var/backups/wpp',
  /** The one command every hook, page and the service run: loads /etc/wpp/env, then runs this package's wpp. */
  launcher: '/usr/local/lib/wpp/wpp',
  systemdUnit: '/etc/systemd/system/wpp.service',
  /** On a panel: the scheduled comparison of its accounts, as root (`wpp import <panel> --if-due`), hourly. */
  panelCheckService: '/etc/systemd/system/wpp-panel-check.service',
  panelCheckTimer: '/etc/systemd/system/wpp-panel-check.timer',
  systemctl: '/usr/bin/systemctl',
} as const;

export const recordPath = (panel: string) => `${LAYOUT.recordDir}/${panel}.json`;
