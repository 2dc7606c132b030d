#!/bin/sh
# The image's entry point (run by tini). The first argument chooses the program:
#   polymodal-mcp (default), polymodal-mcp-meeting, polymodal-mcp-media, polymodal-mcp-speech: served over
#     Streamable HTTP on $POLYMODAL_HTTP_HOST:$POLYMODAL_HTTP_PORT (0.0.0.0:3000) unless the arguments say
#     --host or --port; other arguments go to the server (--toolsets, --metrics-port, ...);
#   only flags (e.g. `--toolsets meeting`): polymodal-mcp with them;
#   anything else (polymodal-migrate, node, sh): run as given.
# Secrets mounted as files: POLYMODAL_API_KEY_FILE, POLYMODAL_DATABASE_URL_FILE and
# POLYMODAL_METRICS_TOKEN_FILE name a file whose content becomes the variable without _FILE.
# The server replaces this shell (exec), so tini's signals reach node itself.
set -eu

for variable in POLYMODAL_API_KEY POLYMODAL_DATABASE_URL POLYMODAL_METRICS_TOKEN; do
  eval "file=\${${variable}_FILE:-}"
  if [ -n "$file" ]; then
    if [ ! -r "$file" ]; then
      echo "polymodal-entrypoint: ${variable}_FILE names $file, which cannot be read" >&2
      exit 2
    fi
    eval "export ${variable}=\"\$(cat \"\$file\")\""
    unset "${variable}_FILE"
  fi
done

case "${1:-polymodal-mcp}" in
  polymodal-mcp | polymodal-mcp-meeting | polymodal-mcp-media | polymodal-mcp-speech)
    server="${1:-polymodal-mcp}"
    [ "$#" -gt 0 ] && shift
    ;;
  -*) server=polymodal-mcp ;;
  *) exec "$@" ;;
esac

listen=""
case " $* " in *" --host "* | *" --host="*) ;; *) listen="--host ${POLYMODAL_HTTP_HOST:-0.0.0.0}" ;; esac
case " $* " in *" --port "* | *" --port="*) ;; *) listen="$listen --port ${POLYMODAL_HTTP_PORT:-3000}" ;; esac
# shellcheck disable=SC2086 # $listen is flags and values without spaces
exec "$server" --http $listen "$@"
