<?php
/**
 * Protection per hosting package (issue 22): a service-plan permission "Web Protection", set by
 * the host in each service plan (Service Plans > plan > Permissions) and, for a subscription
 * unlocked from its plan, on the subscription itself.
 *
 * Plesk's extensions guide ("Integrate with Plesk Service Plans"): a pm_Hook_Permissions class
 * returns the permissions by id with 'default', 'place', 'name' and 'description'; Plesk keeps
 * each id with the extension's id in front (here wpp_web_protection, the name the plugin gives
 * the cPanel feature and the DirectAdmin package item too) with the plan's other items in the
 * TmplData table, which is where wpp reads it (plesk db, src/panel/plesk-package.ts). In the
 * extension itself it reads as pm_Domain::hasPermission('web_protection').
 *
 * Default on: a plan the host never touched keeps protecting, as before the permission existed.
 */
class Modules_Wpp_Permissions extends pm_Hook_Permissions
{
    public function getPermissions()
    {
        return [
            'web_protection' => [
                'default' => true,
                'place' => self::PLACE_MAIN,
                'name' => 'Web Protection',
                'description' => 'Websites of this plan are put behind the web protection service (bot filtering, WAF, certificates). Without it they are not protected and the Web Protection menu entry is not shown.',
            ],
        ];
    }
}
