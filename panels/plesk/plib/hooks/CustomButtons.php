<?php
/**
 * The menu entries: one in the customer's hosting panel navigation, one in the reseller's and
 * one in the administrator's navigation. All open the extension's own page (IndexController),
 * which decides who is signed in from the panel session; no button carries who the user is.
 *
 * The customer's entry is shown only to an account whose package includes web protection: a
 * button's 'visibility' callback (pm_Hook_CustomButtons, Plesk's published stubs; Plesk's own
 * extensions use it on this navigation) decides per session. The package is the service-plan
 * permission Web Protection (Permissions.php), which Plesk answers per subscription with
 * pm_Domain::hasPermission('web_protection').
 */
class Modules_Wpp_CustomButtons extends pm_Hook_CustomButtons
{
    /** The permission's id as the extension names it (Plesk stores it as wpp_web_protection). */
    const PERMISSION = 'web_protection';

    public function getButtons()
    {
        return [
            [
                'place' => self::PLACE_HOSTING_PANEL_NAVIGATION,
                'title' => 'Web Protection',
                'description' => 'Protect your websites: bot filtering, WAF and certificates.',
                'link' => pm_Context::getBaseUrl(),
                'visibility' => [$this, 'isCustomerEntryVisible'],
            ],
            [
                'place' => self::PLACE_ADMIN_NAVIGATION,
                'title' => 'Web Protection',
                'description' => 'The web protection of every customer\'s websites.',
                'link' => pm_Context::getBaseUrl(),
            ],
            [
                'place' => self::PLACE_RESELLER_NAVIGATION,
                'title' => 'Web Protection',
                'description' => 'The web protection of your customers\' websites.',
                'link' => pm_Context::getBaseUrl(),
            ],
        ];
    }

    /**
     * Whether the customer's navigation shows the entry. wpp keeps protection per account, and an
     * account counts as included when any of its subscriptions includes it (src/panel/plesk-package.ts),
     * so the entry is shown when any subscription's plan includes it. Only an explicit "off" hides
     * it: a plan with no stored value has the permission's default (on). When Plesk cannot answer,
     * the entry stays and the page decides (it still says when the package lacks protection).
     */
    public function isCustomerEntryVisible($params = [])
    {
        try {
            $customer = $this->customer();
            if ($customer === null) {
                return true;
            }
            foreach (pm_Domain::getDomainsByClient($customer, true) as $subscription) {
                if (!self::isOff($subscription->hasPermission(self::PERMISSION))) {
                    return true;
                }
            }
            return false;
        } catch (Exception $e) {
            return true;
        }
    }

    /**
     * The account whose navigation this is: the customer signed in, or the customer an administrator
     * or reseller is signed in as ("Log in as Customer"), as IndexController reads it; null for an
     * administrator's or reseller's own (their entries are the other two).
     */
    private function customer()
    {
        $client = pm_Session::getClient();
        if (($client->isAdmin() || $client->isReseller()) && pm_Session::isImpersonated()) {
            $client = pm_Client::getByClientId(pm_Session::getImpersonatedClientId());
        }
        return $client->isClient() ? $client : null;
    }

    /** A permission's value as Plesk keeps plan permissions ('true'/'false'); anything but off counts as on. */
    private static function isOff($value)
    {
        return $value === false || (is_string($value) && strtolower(trim($value)) === 'false');
    }
}
