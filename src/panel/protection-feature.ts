/**
 * The one name of a hosting package's web protection switch in every panel that has one: the
 * cPanel Feature Manager feature (install_plugin makes it from the menu entry's id), the
 * DirectAdmin custom package item, and the Plesk service plan permission as Plesk stores it
 * (the extension's id `wpp` in front of its own `web_protection`, panels/plesk/plib/hooks/
 * Permissions.php). One name, so a host finds the same word in each panel and in wpp's messages;
 * the panels' own files keep it as a literal (test/unit/protection-feature.test.ts checks they agree).
 */
export const PROTECTION_FEATURE = 'wpp_web_protection';
