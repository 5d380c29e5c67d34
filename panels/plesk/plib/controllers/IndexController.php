<?php
/**
 * Web Protection: opens the plugin's pages for whoever is signed in to Plesk.
 *
 * Who that is comes from the panel session only (pm_Session::getClient), never from the
 * request: a customer gets their own account's pages, the administrator the admin pages.
 * The one-time sign-in URL is signed with a secret only root may read, so it is made by the
 * extension's sbin script (pm_ApiCli::callSbin runs it as root), which is handed the login
 * this controller read from the session. Then the browser is redirected there.
 */
class IndexController extends pm_Controller_Action
{
    public function indexAction()
    {
        $client = pm_Session::getClient();
        $args = $client->isAdmin() ? ['--admin', $client->getLogin()] : ['--account', $client->getLogin()];
        try {
            $result = pm_ApiCli::callSbin('launch-url', $args, pm_ApiCli::RESULT_FULL);
        } catch (Exception $e) {
            $result = ['code' => 1, 'stdout' => '', 'stderr' => $e->getMessage()];
        }
        $url = trim((string) $result['stdout']);
        if ((int) $result['code'] !== 0 || !preg_match('#^https?://[^\s]+$#', $url)) {
            $this->_helper->viewRenderer->setNoRender(true);
            $this->getResponse()
                ->setHttpResponseCode(502)
                ->setBody(
                    '<h1>Web Protection is not available</h1>'
                    . '<p>The pages could not be opened. Please try again in a minute; if it keeps failing, '
                    . 'ask your hosting provider (the server administrator can run: wpp doctor).</p>'
                );
            return;
        }
        $this->_redirect($url, ['prependBase' => false]);
    }
}
