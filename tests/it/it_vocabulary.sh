#!/bin/bash
# it_vocabulary.sh - one word, one meaning, in every command (docs/design.md,
# "One vocabulary").
#
# The table in docs/design.md gives each option word its letter, the value
# it takes as --help writes it (TIME, N, FILE, ...) and its meaning. For
# spoolsim's commands, smtp-source and smtp-sink, each option their
# --list-options prints must have a row; its --help label ("-x, --name
# VALUE") must bind the letter the row binds and write the row's value;
# no word may have two rows. smtp-source's and smtp-sink's letters are
# Postfix's and are not checked. The directory under test is --spool in
# bench, sweep, raw, crash and relay, and no command takes --dir or --like.
# Before the real commands, a made-up command with crash's old -o and
# --like shows that the checks fail. An old spelling still works, with a
# one-line notice naming the new one.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SPOOLSIM=$top_builddir/spoolsim/spoolsim
export LC_ALL=C
work=$WORK
tab=$(printf '\t')

[ -x "$SPOOLSIM" ] || {
    echo "it_vocabulary: $SPOOLSIM is not built" >&2
    exit 1
}

# The table's rows as "WORD<TAB>VALUE<TAB>LETTER" (a long name) and
# "-x<TAB><TAB>--name" (a letter), from the section's first table.
awk -F'|' '
/^## One vocabulary/ { in_section = 1; next }
/^## / { in_section = 0 }
in_section && /^\| `-/ {
    gsub(/\\\|/, "\001")
    words = $2; value = $3
    gsub(/[` ]/, "", value); gsub(/\001/, "|", value)
    gsub(/[` ]/, "", words)
    n = split(words, w, ",")
    if (n == 2) { print w[2] "\t" value "\t" w[1]; print w[1] "\t\t" w[2] }
    else print w[1] "\t" value "\t"
}' "${top_srcdir}/docs/design.md" >"$work/table"
check "docs/design.md has the vocabulary" test "$(wc -l <"$work/table")" -gt 50
cut -f1 "$work/table" | sort | uniq -d | sed 's/^/it_vocabulary: two rows for /' >"$work/dups"

# help_words PROGRAM...: "WORD<TAB>VALUE<TAB>LETTER" for each word of each
# option label of --help (lines indented by at most four spaces).
help_words() {
    "$@" --help 2>&1 | awk '
    /^ +-/ {
        if (match($0, /^ +/) && RLENGTH > 4) next
        line = $0; sub(/^ +/, "", line)
        label = line; i = index(line, "  "); if (i) label = substr(line, 1, i - 1)
        n = split(label, part, ", ")
        letter = ""
        for (k = 1; k <= n; k++) {
            w = part[k]; value = ""
            j = index(w, " "); if (j) { value = substr(w, j + 1); w = substr(w, 1, j - 1) }
            j = index(w, "[="); if (j && value == "") { value = substr(w, j); w = substr(w, 1, j - 1) }
            if (w !~ /^--?[A-Za-z0-9][A-Za-z0-9-]*$/) break
            if (w ~ /^-[A-Za-z0-9]$/) { if (k == 1) letter = w; print w "\t" value "\t"; continue }
            print w "\t" value "\t" letter; letter = ""
        }
    }'
}

# row WORD: the table's row of WORD.
row() { grep -F -e "$1$tab" "$work/table" | grep -e "^$1$tab" | head -n 1; }

# vocab_check NAME LETTERS PROGRAM...: one line per problem of PROGRAM's options;
# LETTERS is "postfix" when its letters are Postfix's.
vocab_check() {
    name=$1
    letters=$2
    shift 2
    if ! "$@" --list-options >"$work/list" 2>"$work/err"; then
        echo "$name: --list-options failed: $(cat "$work/err")"
        return
    fi
    help_words "$@" >"$work/help"
    for option in $(grep -e '^-' "$work/list" | sed 's/\[*=\]*$//'); do
        case $option in
        --dir | --like | --directory) echo "$name: the directory under test is --spool, not $option" ;;
        esac
        case $option in
        --*) ;;
        *) [ "$letters" = postfix ] && continue ;;
        esac
        r=$(row "$option")
        if [ -z "$r" ]; then
            echo "$name: $option is not in docs/design.md's vocabulary"
            continue
        fi
        h=$(grep -e "^$option$tab" "$work/help" | head -n 1)
        if [ -z "$h" ]; then
            echo "$name: $option has no label in --help"
            continue
        fi
        case $option in
        --*)
            want=$(printf '%s\n' "$r" | cut -f2)
            got=$(printf '%s\n' "$h" | cut -f2)
            [ "$want" = "$got" ] ||
                echo "$name: $option takes ${got:-no value} in --help, ${want:-no value} in the vocabulary"
            ;;
        *)
            want=$(printf '%s\n' "$r" | cut -f3)
            got=$(grep -e "$tab$option\$" "$work/help" | cut -f1 | head -n 1)
            [ "$want" = "$got" ] ||
                echo "$name: $option is ${got:-alone} in --help, $want in the vocabulary"
            ;;
        esac
    done
}

# The control: a command as crash was, -o for mount options, --like DIR.
cat >"$work/old" <<'EOF'
#!/bin/sh
case $1 in
--list-options) printf '%s\n' -o= --options= --like= -n= --points= ;;
--help) printf '%s\n' "  -o, --options OPTS   mount options" "  --like DIR   like DIR" \
    "  -n, --points N   crash points" ;;
esac
EOF
chmod +x "$work/old"
vocab_check control spoolsim "$work/old" >"$work/found"
for want in "-o is --options in --help, --output" "--like" "--options is not in" \
    "-n is --points in --help, --runs"; do
    check "control: crash's old options found ($want)" grep -q -F -e "$want" "$work/found"
done

cp "$work/dups" "$work/problems"
for command in $("$SPOOLSIM" --list-options | grep -v -e '^-' -e '^help$' -e '^source$' -e '^sink$'); do
    vocab_check "spoolsim $command" spoolsim "$SPOOLSIM" "$command" >>"$work/problems"
done
vocab_check smtp-source postfix "$top_builddir/smtp-source/smtp-source" >>"$work/problems"
vocab_check smtp-sink postfix "$top_builddir/smtp-sink/smtp-sink" >>"$work/problems"
for command in bench sweep raw crash relay; do
    "$SPOOLSIM" "$command" --list-options | grep -q -x -e '--spool=' ||
        echo "spoolsim $command: the directory under test is not --spool DIR" >>"$work/problems"
done

# An old spelling still works, with one notice naming the new one.
mkdir "$work/spool"
check "raw --dir still works" sh -c "'$SPOOLSIM' raw --dir '$work/spool' -m 1 --dry-run >'$work/old.out' 2>'$work/old.err'"
check "  ... with a one-line notice naming --spool" \
    sh -c "test \"\$(wc -l <'$work/old.err')\" = 1 && grep -q -e 'say --spool' '$work/old.err'"
check "raw --spool: no notice" sh -c "'$SPOOLSIM' raw --spool '$work/spool' -m 1 --dry-run 2>&1 >/dev/null | ( ! grep . )"

sed 's/^/   /' "$work/problems"
check "every command's options are in the vocabulary ($(wc -l <"$work/table") words)" test ! -s "$work/problems"
finish
