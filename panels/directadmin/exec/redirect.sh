# wpp {{VERSION}}: sourced by user/index.raw, reseller/index.raw and admin/index.raw. A .raw page writes its own
# HTTP response; this one is a redirect to a one-time sign-in URL for the signed-in user only.
# Also sourced by user/menu.raw, the user's menu (wpp_user_menu, at the end).
#
# The page runs as the signed-in DirectAdmin user, not root: recent DirectAdmin refuses plugin
# pages that ask to run as uid 0. It cannot sign anyone in (the sign-in key is the wpp service's).
# It hands the session DirectAdmin gave it (SESSION_ID, SESSION_KEY) to the service, on standard
# input, never as arguments; the service asks DirectAdmin's own API whose session it is and makes
# a launch URL for that user only. USERNAME is sent along and must match DirectAdmin's answer.
# QUERY_STRING and the request body are never read, so a request cannot name someone else.

WPP_LAUNCHER='{{LAUNCHER}}'

# An answer without a redirect: status, then a sentence for the user.
wpp_answer() {
  printf 'HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n\r\n' "$1"
  printf '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Web protection</title></head>\n'
  printf '<body><h1>Web protection</h1><p>%s</p></body></html>\n' "$2"
  exit 0
}

# $1: --account (a customer's page), --reseller (a reseller's page) or --admin (an admin's page).
wpp_redirect() {
  wpp_who="${USERNAME:-}"
  case "$wpp_who" in
    '') wpp_answer '403 Forbidden' 'DirectAdmin did not say who is signed in. Open this page from the DirectAdmin menu.' ;;
    [!a-z0-9]* | *[!a-z0-9._-]*) wpp_answer '403 Forbidden' 'This is not a DirectAdmin user name.' ;;
  esac
  # DirectAdmin's session values are letters and digits; anything else is not DirectAdmin's.
  for wpp_value in "${SESSION_ID:-}" "${SESSION_KEY:-}"; do
    case "$wpp_value" in
      '' | *[!A-Za-z0-9]*) wpp_answer '403 Forbidden' 'DirectAdmin did not hand this page a session. Open it from the DirectAdmin menu.' ;;
    esac
  done
  wpp_domain="${SESSION_SELECTED_DOMAIN:-}"
  case "$wpp_domain" in *[!A-Za-z0-9.-]*) wpp_domain='' ;; esac
  # printf is the shell's own: the session never appears in a process's arguments.
  wpp_url=$(printf '%s\n%s\n%s\n%s\n' "$SESSION_ID" "$SESSION_KEY" "$wpp_who" "$wpp_domain" | "$WPP_LAUNCHER" directadmin-launch "$1" 2>/dev/null) ||
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

# The user's Evolution menu, $1 being the menu with the entry (images/user_menu.json). The service asks
# DirectAdmin with the session, as for a sign-in, and answers from the session's own user.conf:
# `hidden` when the package item wpp_web_protection is OFF. Whenever that answer is not had (no
# session DirectAdmin would set, the service down, any other output) the entry stays: the page then
# decides, and it says when the package does not include web protection. Hiding an entry guards
# nothing: the page checks again.
wpp_user_menu() {
  wpp_menu="$1"
  wpp_who="${USERNAME:-}"
  wpp_ask=yes
  case "$wpp_who" in '' | [!a-z0-9]* | *[!a-z0-9._-]*) wpp_ask=no ;; esac
  for wpp_value in "${SESSION_ID:-}" "${SESSION_KEY:-}"; do
    case "$wpp_value" in '' | *[!A-Za-z0-9]*) wpp_ask=no ;; esac
  done
  wpp_shown=shown
  if [ "$wpp_ask" = yes ]; then
    wpp_shown=$(printf '%s\n%s\n%s\n\n' "$SESSION_ID" "$SESSION_KEY" "$wpp_who" | "$WPP_LAUNCHER" directadmin-launch --menu 2>/dev/null) ||
      wpp_shown=shown
  fi
  printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n'
  if [ "$wpp_shown" = hidden ]; then printf '[]\n'; else cat "$wpp_menu"; fi
}
