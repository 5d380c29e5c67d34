<?php
/**
 * The menu entries: one in the customer's hosting panel navigation, one in the reseller's and
 * one in the administrator's navigation. All open the extension's own page (IndexController),
 * which decides who is signed in from the panel session; no button carries who the user is.
 */
class Modules_Wpp_CustomButtons extends pm_Hook_CustomButtons
{
    public function getButtons()
    {
        return [
            [
                'place' => self::PLACE_HOSTING_PANEL_NAVIGATION,
                'title' => 'Web Protection',
                'description' => 'Protect your websites: bot filtering, WAF and certificates.',
                'link' => pm_Context::getBaseUrl(),
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
}
