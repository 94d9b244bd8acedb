#!/usr/bin/env bash
# Makes a small data directory with a given papertide binary and archives it without the
# embedding model: the upgrade test (web/tests/it/upgrade.rs) opens it with the current binary.
#
#   store/tests/data/make-old-data-dir.sh BINARY OUT.tar.gz
#
# Run from the repository's root (it reads fixtures from engine/fixtures/). Needs curl and
# python3. What it makes (README.md beside this script says what the test relies on):
#   - papers: the 20 PubMed records of engine/fixtures/pubmed/efetch_batch_20_articles.xml with
#     their Entrez dates moved to 2026-11-24..27 (the first 14) and 2026-12-02..04 (the other
#     6), and efetch_batch_6_articles.xml and an arXiv Atom page as they are;
#   - ada@example.org and cy@example.org, verified, on the pro plan; cy delivers on Tuesdays;
#     bob@example.org signed up and not verified; every password is Secret-123;
#   - ada follows "phthalate" and "peroxisome proliferation", cy "phthalate": each term's
#     immediate digest went out on the day of the run;
#   - `papertide weekly --at 2026-12-07T09:00:00Z`: ada's weekly digests (Monday), their mail
#     still queued.
set -euo pipefail

binary=$(realpath "$1")
out=$(realpath -m "$2")
scratch=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$scratch"' EXIT
data="$scratch/data"
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
password=Secret-123
server=

export PAPERTIDE_HARVEST_SOURCES=none PAPERTIDE_LIVE_SEARCH=false PAPERTIDE_LOG=warn
unset PAPERTIDE_EMBED_MODEL_DIR PAPERTIDE_SMTP_URL PAPERTIDE_CONFIG

python3 - engine/fixtures/pubmed/efetch_batch_20_articles.xml "$scratch/recent.xml" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
head, *articles = text.split("<PubmedArticle>")
days = ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"] * 4
days = days[:14] + ["2026-12-02", "2026-12-03", "2026-12-04"] * 2
moved = []
for article, day in zip(articles, days):
    year, month, dd = day.split("-")
    date = f"<Year>{year}</Year><Month>{int(month)}</Month><Day>{int(dd)}</Day>"
    for status in ("entrez", "pubmed"):
        article = re.sub(rf'(<PubMedPubDate PubStatus="{status}">)<Year>\d+</Year><Month>\d+</Month><Day>\d+</Day>', rf"\g<1>{date}", article)
    moved.append(article)
open(sys.argv[2], "w", encoding="utf-8").write("<PubmedArticle>".join([head] + moved))
EOF

"$binary" --data-dir "$data" import "$scratch/recent.xml" engine/fixtures/pubmed/efetch_batch_6_articles.xml \
    engine/fixtures/arxiv/api_query_testing_start0_max10.xml

serve() {
    "$binary" --data-dir "$data" serve --bind "127.0.0.1:$port" --public-url "$base" &
    server=$!
    for _ in $(seq 200); do
        curl -fs "$base/healthz" >/dev/null && return
        sleep 0.1
    done
    echo "the server did not start" >&2
    exit 1
}

stop() {
    kill -TERM "$server"
    wait "$server" || true
    server=
}

api() { # JAR METHOD PATH [BODY]
    curl -fsS -b "$scratch/$1.jar" -c "$scratch/$1.jar" -X "$2" -H 'content-type: application/json' \
        ${4:+--data "$4"} "$base$3"
    echo
}

mail_link() { # EMAIL MARKER: the link in the newest outbox mail to EMAIL
    python3 - "$data/outbox" "$1" "$2" <<'EOF'
import email, os, re, sys
outbox, to, marker = sys.argv[1:]
for name in sorted(os.listdir(outbox), reverse=True):
    if not name.endswith(".eml"):
        continue
    message = email.message_from_binary_file(open(os.path.join(outbox, name), "rb"))
    if message["To"] != to:
        continue
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            found = re.search(r"\S*" + re.escape(marker) + r"\S*", part.get_payload(decode=True).decode())
            if found:
                print(found.group(0))
                sys.exit(0)
sys.exit(f"no {marker} link to {to}")
EOF
}

signup() { # EMAIL
    api "$1" POST /api/signup "{\"email\":\"$1\",\"password\":\"$password\",\"confirmPassword\":\"$password\",\"agreeToTerms\":true,\"agreeToPrivacy\":true}"
}

wait_for_outbox() { # COUNT
    for _ in $(seq 200); do
        [ "$(find "$data/outbox" -name '*.eml' 2>/dev/null | wc -l)" -ge "$1" ] && return
        sleep 0.1
    done
    echo "fewer than $1 mails in the outbox" >&2
    exit 1
}

serve
for user in ada@example.org bob@example.org cy@example.org; do
    signup "$user"
done
wait_for_outbox 3
for user in ada@example.org cy@example.org; do
    link=$(mail_link "$user" /verify-email?token=)
    api "$user" GET "/api/verify-email?token=${link#*token=}"
done
stop

"$binary" --data-dir "$data" users set-tier ada@example.org pro
"$binary" --data-dir "$data" users set-tier cy@example.org pro

serve
for user in ada@example.org cy@example.org; do
    api "$user" POST /api/auth/login "{\"email\":\"$user\",\"password\":\"$password\"}" | tee "$scratch/$user.login"
done
cy=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["id"])' <"$scratch/cy@example.org.login")
api cy@example.org PATCH "/api/users/$cy/preferences" '{"deliveryDay":"tuesday"}'
api ada@example.org POST /api/immediate-search '{"email":"ada@example.org","searchTerm":"phthalate"}'
api ada@example.org POST /api/immediate-search '{"email":"ada@example.org","searchTerm":"peroxisome proliferation"}'
api cy@example.org POST /api/immediate-search '{"email":"cy@example.org","searchTerm":"phthalate"}'
# Three verification mails, three digests.
wait_for_outbox 6
stop

"$binary" --data-dir "$data" weekly --at 2026-12-07T09:00:00Z

rm -rf "$data/models"
tar -czf "$out" -C "$scratch" --owner=0 --group=0 --numeric-owner data
echo "wrote $out ($(du -k "$out" | cut -f1) KiB)"
