<?php
// The extension's entry point, as in Plesk's extension template: Plesk's front controller
// signs the user in from the panel session, then runs plib/controllers/IndexController.php.
pm_Context::init('wpp');
$application = new pm_Application();
$application->run();
