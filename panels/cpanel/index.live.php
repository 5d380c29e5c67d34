<?php
/*
 * wpp's page in cPanel (Security > Web Protection), written by `wpp install cpanel`.
 * cPanel runs it as the signed-in cPanel user. It asks cPanel, through wpp's UAPI function, for
 * a one-time sign-in URL into the web protection pages and redirects there. The URL is made by a
 * root-owned admin module for the account cPanel says called it, never for an account this page
 * names: the page passes no account (only the user's language), and nothing in the request
 * (query, form) is read.
 */

function wpp_refuse($status, $title, $text)
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    header('Cache-Control: no-store');
    $title = htmlspecialchars($title, ENT_QUOTES, 'UTF-8');
    $text = htmlspecialchars($text, ENT_QUOTES, 'UTF-8');
    echo "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>$title</title></head>\n";
    echo "<body><h1>$title</h1><p>$text</p></body></html>\n";
    exit;
}

// cPanel sets REMOTE_USER for a signed-in session; without it there is nobody to sign in.
$user = isset($_SERVER['REMOTE_USER']) ? (string) $_SERVER['REMOTE_USER'] : (string) getenv('REMOTE_USER');
if ($user === '') {
    wpp_refuse(401, 'Not signed in', 'Sign in to cPanel, then open Web Protection again.');
}

require_once '/usr/local/cpanel/php/cpanel.php';
$cpanel = new CPANEL();
// The language cPanel shows this user its own pages in (UAPI Locale::get_attributes), so wpp's
// pages speak it too. Only a language tag is passed on; anything else leaves them in English.
$attributes = $cpanel->uapi('Locale', 'get_attributes');
$locale = isset($attributes['cpanelresult']['result']['data']['locale']) ? $attributes['cpanelresult']['result']['data']['locale'] : '';
$args = is_string($locale) && preg_match('/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8}){0,4}$/', $locale) ? array('locale' => $locale) : array();
$answer = $cpanel->uapi('WebProtection', 'launch_url', $args);
$cpanel->end();

$result = isset($answer['cpanelresult']['result']) ? $answer['cpanelresult']['result'] : null;
// wpp's admin module refused this session (Webmail, a team role without websites, the feature
// off): say why, in its words, and open nothing.
if (empty($result['status']) && !empty($result['data']['refused'])) {
    $why = isset($result['errors'][0]) && is_string($result['errors'][0]) ? $result['errors'][0] : 'Ask your hosting provider.';
    wpp_refuse(403, 'Web Protection is not available to you', $why);
}
$url = isset($result['data']['url']) ? $result['data']['url'] : null;
// One absolute http(s) URL and nothing else: it goes into a Location header.
if (empty($result['status']) || !is_string($url) || !preg_match('#^https?://[^\s<>"]+$#', $url)) {
    wpp_refuse(502, 'Web Protection is unavailable', 'The web protection service could not be reached. Please try again in a few minutes.');
}

header('Cache-Control: no-store');
header('Location: ' . $url, true, 302);
