<?php
/**
 * Web Protection: opens the plugin's pages for whoever is signed in to Plesk.
 *
 * Who that is comes from the panel session only (pm_Session::getClient), never from the
 * request. The one-time sign-in URL is signed with a secret only root may read, so it is made
 * by the extension's sbin script (pm_ApiCli::callSbin runs it as root), which is handed the
 * login this controller read from the session. Then the browser is redirected there.
 *
 * Who gets what:
 * - an administrator or a reseller signed in as one of their customers ("Log in as Customer",
 *   pm_Session::isImpersonated()): that customer's pages, as the customer would see them;
 *   Plesk lets them act for that customer, so no role of theirs is checked;
 * - the administrator: the admin pages;
 * - a reseller: the reseller pages, for the reseller's own customers (wpp knows which accounts
 *   are theirs from Plesk's client owner);
 * - a customer: their own account's pages, if the signed-in user may manage websites on every
 *   subscription of the account. An additional user of a customer signs in as part of that
 *   customer (getClient() is the customer), and wpp's pages cover the whole account, so such a
 *   user needs their role's "websites and domains management" permission and access to every
 *   subscription; the customer themselves has both.
 * Nothing is signed for a refused user: the sbin script is not called. The user's Plesk language
 * goes with the login (--lang), for the pages to speak it.
 */
class IndexController extends pm_Controller_Action
{
    /** The user-role permission that fits (Users > Roles; `plesk bin role -webSitesAndDomainsManagement`). */
    const MANAGE_WEBSITES = 'webSitesAndDomainsManagement';

    public function indexAction()
    {
        $client = pm_Session::getClient();
        if (($client->isAdmin() || $client->isReseller()) && pm_Session::isImpersonated()) {
            $this->openForImpersonated();
        } elseif ($client->isAdmin()) {
            $this->launch(['--admin', $client->getLogin()]);
        } elseif ($client->isReseller()) {
            $this->launch(['--reseller', $client->getLogin()]);
        } elseif (!$client->isClient()) {
            $this->refuse('Web Protection is not available to you', 'Only customers, resellers and the administrator can open Web Protection.');
        } else {
            $this->openForCustomer($client);
        }
    }

    /** The customer an administrator or reseller is signed in as: that customer's pages, if the account has websites. */
    private function openForImpersonated()
    {
        try {
            $customer = pm_Client::getByClientId(pm_Session::getImpersonatedClientId());
            $subscriptions = $customer->isClient() ? pm_Domain::getDomainsByClient($customer, true) : [];
        } catch (Exception $e) {
            $this->unavailable();
            return;
        }
        if (!$customer->isClient()) {
            $this->refuse('Web Protection is not available to you', 'Only customers and the administrator can open Web Protection.');
        } elseif (count($subscriptions) === 0) {
            $this->refuse('Web Protection is not available to you', 'This account has no hosting subscription, so it has no websites to protect.');
        } else {
            $this->launch(['--account', $customer->getLogin()]);
        }
    }

    private function openForCustomer(pm_Client $client)
    {
        try {
            $subscriptions = pm_Domain::getDomainsByClient($client, true);
            $allowed = true;
            foreach ($subscriptions as $domain) {
                $allowed = $allowed
                    && $client->hasAccessToDomain($domain->getId())
                    && $client->hasCorePermission(self::MANAGE_WEBSITES, $domain);
            }
        } catch (Exception $e) {
            $this->unavailable();
            return;
        }
        if (count($subscriptions) === 0) {
            $this->refuse('Web Protection is not available to you', 'This account has no hosting subscription, so it has no websites to protect.');
        } elseif (!$allowed) {
            $this->refuse(
                'Web Protection is not available to you',
                'Your Plesk user may not manage every website of this account. Ask the account owner for a role with "Websites and domains management" and access to all subscriptions.'
            );
        } else {
            $this->launch(['--account', $client->getLogin()]);
        }
    }

    private function launch(array $args)
    {
        // The language Plesk shows this user its panel in (pm_Locale: the session's locale, such as
        // de-DE), so wpp's pages speak it too; a code that is no language tag is left out (English).
        try {
            $locale = pm_Locale::getCode();
        } catch (Exception $e) {
            $locale = '';
        }
        if (is_string($locale) && preg_match('/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8}){0,4}$/', $locale)) {
            $args[] = '--lang';
            $args[] = $locale;
        }
        try {
            $result = pm_ApiCli::callSbin('launch-url', $args, pm_ApiCli::RESULT_FULL);
        } catch (Exception $e) {
            $result = ['code' => 1, 'stdout' => '', 'stderr' => $e->getMessage()];
        }
        $url = trim((string) $result['stdout']);
        if ((int) $result['code'] !== 0 || !preg_match('#^https?://[^\s]+$#', $url)) {
            $this->unavailable();
            return;
        }
        $this->_redirect($url, ['prependBase' => false]);
    }

    private function unavailable()
    {
        $this->page(
            502,
            'Web Protection is not available',
            'The pages could not be opened. Please try again in a minute; if it keeps failing, '
            . 'ask your hosting provider (the server administrator can run: wpp doctor).'
        );
    }

    private function refuse($title, $text)
    {
        $this->page(403, $title, $text);
    }

    private function page($status, $title, $text)
    {
        $this->_helper->viewRenderer->setNoRender(true);
        $this->getResponse()
            ->setHttpResponseCode($status)
            ->setBody(
                // Element text only: quotes may stay as they are.
                '<h1>' . htmlspecialchars($title, ENT_NOQUOTES, 'UTF-8') . '</h1>'
                . '<p>' . htmlspecialchars($text, ENT_NOQUOTES, 'UTF-8') . '</p>'
            );
    }
}
