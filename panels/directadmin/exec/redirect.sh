# wpp {{VERSION}}: sourced by user/index.raw and admin/index.raw. A .raw page writes its own
# HTTP response; this one is a redirect to a one-time sign-in URL for the signed-in user only.
#
# Who is asking comes from USERNAME alone, which DirectAdmin sets for the session it has signed
# in. QUERY_STRING and the request body are never read, so a request cannot name someone else.
# The page runs as root (plugin.conf *_run_as=root) because the URL is signed with the sign-in
# key in /var/lib/wpp, which no DirectAdmin user can read.

WPP_LAUNCHER='{{LAUNCHER}}'

# An answer without a redirect: status, then a sentence for the user.
wpp_answer() {
  printf 'HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n\r\n' "$1"
  printf '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Web protection</title></head>\n'
  printf '<body><h1>Web protection</h1><p>%s</p></body></html>\n' "$2"
  exit 0
}

# $1: --account (a customer's page) or --admin (an admin's page).
wpp_redirect() {
  wpp_who="${USERNAME:-}"
  case "$wpp_who" in
    '') wpp_answer '403 Forbidden' 'DirectAdmin did not say who is signed in. Open this page from the DirectAdmin menu.' ;;
    [!a-z0-9]* | *[!a-z0-9._-]*) wpp_answer '403 Forbidden' 'This is not a DirectAdmin user name.' ;;
  esac
  if [ "$(/usr/bin/id -u)" != 0 ]; then
    wpp_answer '503 Service Unavailable' 'Web protection is not set up completely on this server (its page does not run as root). Please tell your host.'
  fi
  wpp_url=$("$WPP_LAUNCHER" launch-url --panel directadmin "$1" "$wpp_who" 2>/dev/null) ||
    wpp_answer '503 Service Unavailable' 'Web protection is not available right now. Please try again in a minute.'
  # Only a URL goes into the Location header: no line break, space or quote can end it early.
  case "$wpp_url" in
    http://* | https://*) ;;
    *) wpp_answer '503 Service Unavailable' 'Web protection is not available right now. Please try again in a minute.' ;;
  esac
  case "$wpp_url" in
    *[!A-Za-z0-9:/?#\&=._~%+-]*) wpp_answer '503 Service Unavailable' 'Web protection is not available right now. Please try again in a minute.' ;;
  esac
  printf 'HTTP/1.1 302 Found\r\nLocation: %s\r\nCache-Control: no-store\r\nContent-Length: 0\r\n\r\n' "$wpp_url"
}
