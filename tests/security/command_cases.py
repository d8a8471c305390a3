"""The command-safety cases as data: Codex's own unit tests (``codex-rs/shell-command``:
``bash.rs``, ``command_safety/is_safe_command.rs``, ``command_safety/is_dangerous_command.rs``,
Windows and PowerShell left out) and our attacks, one line per case.

Codex's tests give argv vectors; each becomes the shell line we would receive with
``shlex.join`` (``bash -lc SCRIPT`` stays a wrapper around its script). A case whose verdict is
deliberately not Codex's says why in ``differs``; ``docs/security.md`` lists them. Cases of an
earlier Codex that its current tests dropped stay, marked ``codex-earlier:``, when they still
say something (every git case: git now always asks, in Codex and here).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One command line and the verdict it must get."""

    command: str
    expected: bool
    origin: str
    """``codex:<test name>`` for a case of Codex's current tests, ``codex-earlier:<test name>``
    for one an earlier Codex had, else ``ours``."""
    differs: str = ""
    """Why our verdict is not Codex's (empty: the same)."""


def argv(*words: str) -> str:
    """The shell line for Codex's argv vector."""
    return shlex.join(words)


def _codex(test: str, expected: bool, *commands: str, differs: str = "") -> list[Case]:
    return [Case(c, expected, f"codex:{test}", differs) for c in commands]


def _codex_earlier(test: str, expected: bool, *commands: str, differs: str = "") -> list[Case]:
    return [Case(c, expected, f"codex-earlier:{test}", differs) for c in commands]


def _ours(expected: bool, *commands: str, why: str = "") -> list[Case]:
    return [Case(c, expected, "ours", why) for c in commands]


STRICTER_DASH = "stricter: an option-like operand of sed is read as an option (a script)"

# ----------------------------------------------------------------------------------------------
# is_safe_command.rs (current: every git command asks, "git_commands_require_approval")
# ----------------------------------------------------------------------------------------------
CODEX_SAFE: list[Case] = [
    *_codex(
        "known_safe_examples",
        True,
        argv("ls"),
        argv("base64"),
        argv("sed", "-n", "1,5p", "file.txt"),
        argv("nl", "-nrz", "Cargo.toml"),
        argv("find", ".", "-name", "file.txt"),
        argv("numfmt", "1000"),
        argv("tac", "Cargo.toml"),
    ),
    *_codex(
        "git_commands_require_approval",
        False,
        argv("git", "status"),
        argv("git", "diff", "-p"),
        argv("git", "log", "-p", "-1"),
        argv("git", "show", "-p", "HEAD"),
        argv("git", "branch", "--show-current"),
        argv("bash", "-lc", "git status"),
        argv("bash", "-lc", "git log -p -1"),
    ),
    *_codex("cargo_check_is_not_safe", False, argv("cargo", "check")),
    *_codex("zsh_lc_safe_command_sequence", True, argv("zsh", "-lc", "ls")),
    *_codex(
        "unknown_or_partial",
        False,
        argv("foo"),
        argv("git", "fetch"),
        argv("sed", "-n", "xp", "file.txt"),
        argv("find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"),
        argv("find", ".", "-name", "*.py", "-execdir", "python3", "{}", ";"),
        argv("find", ".", "-name", "file.txt", "-ok", "rm", "{}", ";"),
        argv("find", ".", "-name", "*.py", "-okdir", "python3", "{}", ";"),
        argv("find", ".", "-delete", "-name", "file.txt"),
        argv("find", ".", "-fls", "/etc/passwd"),
        argv("find", ".", "-fprint", "/etc/passwd"),
        argv("find", ".", "-fprint0", "/etc/passwd"),
        argv("find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\n"),
    ),
    *_codex(
        "base64_output_options_are_unsafe",
        False,
        argv("base64", "-o", "out.bin"),
        argv("base64", "--output", "out.bin"),
        argv("base64", "--output=out.bin"),
        argv("base64", "-ob64.txt"),
    ),
    *_codex("ripgrep_rules", True, argv("rg", "Cargo.toml", "-n")),
    *_codex(
        "ripgrep_rules",
        False,
        argv("rg", "--search-zip", "files"),
        argv("rg", "-z", "files"),
        argv("rg", "--pre", "pwned", "files"),
        argv("rg", "--pre=pwned", "files"),
        argv("rg", "--hostname-bin", "pwned", "files"),
        argv("rg", "--hostname-bin=pwned", "files"),
    ),
    *_codex(
        "bash_lc_safe_examples",
        True,
        argv("bash", "-lc", "ls"),
        argv("bash", "-lc", "ls -1"),
        argv("bash", "-lc", 'grep -R "Cargo.toml" -n'),
        argv("bash", "-lc", "sed -n 1,5p file.txt"),
        argv("bash", "-lc", "sed -n '1,5p' file.txt"),
        argv("bash", "-lc", "find . -name file.txt"),
    ),
    *_codex(
        "bash_lc_safe_examples_with_operators",
        True,
        argv("bash", "-lc", 'grep -R "Cargo.toml" -n || true'),
        argv("bash", "-lc", "ls && pwd"),
        argv("bash", "-lc", "echo 'hi' ; ls"),
        argv("bash", "-lc", "ls | wc -l"),
    ),
    *_codex(
        "bash_lc_unsafe_examples",
        False,
        argv("bash", "-lc", "git status"),
        argv("bash", "-lc", "git", "status"),
        argv("bash", "-lc", "'git status'"),
        argv("bash", "-lc", "find . -name file.txt -delete"),
        argv("bash", "-lc", "ls && rm -rf /"),
        argv("bash", "-lc", "(ls)"),
        argv("bash", "-lc", "ls || (pwd && echo hi)"),
        argv("bash", "-lc", "ls > out.txt"),
    ),
    *_codex(
        "non_windows_safe_classification_does_not_spawn_repo_powershell_path",
        False,
        argv("/tmp/codex-safe-command-pwsh-test/pwsh", "-Command", "Get-ChildItem"),
    ),
    # Codex's list of programs safe with any arguments has uniq; here a second operand is the
    # file uniq writes (see the attacks below).
    *_codex(
        "(is_safe_to_call_with_exec: uniq with any arguments)",
        True,
        argv("uniq", "-c", "data.txt"),
    ),
    *_codex(
        "(is_safe_to_call_with_exec: uniq with any arguments)",
        False,
        argv("uniq", "in.txt", "out.txt"),
        differs="stricter: uniq's second operand is the file it writes",
    ),
]

# ----------------------------------------------------------------------------------------------
# An earlier is_safe_command.rs ran some git commands unasked; its cases all ask now, in Codex
# and here (git runs programs the repository's config names: core.fsmonitor, core.pager,
# diff drivers, ...). The cases that asked then still ask.
# ----------------------------------------------------------------------------------------------
CODEX_EARLIER_GIT: list[Case] = [
    *_codex_earlier(
        "known_safe_examples",
        False,
        argv("git", "status"),
        argv("git", "branch"),
        argv("git", "branch", "--show-current"),
    ),
    *_codex_earlier(
        "git_branch_mutating_flags_are_not_safe",
        False,
        argv("git", "branch", "-d", "feature"),
        argv("git", "branch", "new-branch"),
    ),
    *_codex_earlier(
        "git_branch_global_options_respect_safety_rules",
        False,
        argv("git", "-C", ".", "branch", "--show-current"),
        argv("git", "-C", ".", "branch", "-d", "feature"),
        argv("bash", "-lc", "git -C . branch -d feature"),
    ),
    *_codex_earlier(
        "git_first_positional_is_the_subcommand", False, argv("git", "checkout", "status")
    ),
    *_codex_earlier(
        "git_output_flags_are_not_safe",
        False,
        argv("git", "log", "--output=/tmp/git-log-out-test", "-n", "1"),
        argv("git", "diff", "--output", "/tmp/git-diff-out-test"),
        argv("git", "show", "--output=/tmp/git-show-out-test", "HEAD"),
    ),
    *_codex_earlier(
        "git_global_override_flags_are_not_safe",
        False,
        argv("git", "-c", "core.pager=cat", "log", "-n", "1"),
        argv("git", "-ccore.pager=cat", "status"),
        argv("git", "--config-env", "core.pager=PAGER", "show", "HEAD"),
        argv("git", "--config-env=core.pager=PAGER", "show", "HEAD"),
        argv("git", "--git-dir", ".evil-git", "diff", "HEAD~1..HEAD"),
        argv("git", "--git-dir=.evil-git", "diff", "HEAD~1..HEAD"),
        argv("git", "--work-tree", ".", "status"),
        argv("git", "--work-tree=.", "status"),
        argv("git", "--exec-path", ".git/helpers", "show", "HEAD"),
        argv("git", "--exec-path=.git/helpers", "show", "HEAD"),
        argv("git", "--namespace", "attacker", "show", "HEAD"),
        argv("git", "--namespace=attacker", "show", "HEAD"),
        argv("git", "--super-prefix", "attacker/", "show", "HEAD"),
        argv("git", "--super-prefix=attacker/", "show", "HEAD"),
        argv("bash", "-lc", "git --git-dir=.evil-git diff HEAD~1..HEAD"),
    ),
    *_codex_earlier(
        "bash_lc_safe_examples",
        False,
        argv("bash", "-lc", "git status"),
    ),
]

# ----------------------------------------------------------------------------------------------
# Our attacks: each was classified safe by the shlex-based check, or is a Codex gap.
# ----------------------------------------------------------------------------------------------
ATTACKS: list[Case] = [
    # sh reads # inside a word as part of the word, not as a comment
    *_ours(False, "cat x#; touch pwned", "ls x#; sh -c id", "test -e a#|| touch f"),
    *_ours(False, "cat x #; ls", "ls;#x", "ls # just a comment"),
    # sed: only -n N[,M]p [FILE]
    *_ours(
        False,
        "sed -n '1e id' f",
        "sed -n 's/a/b/e' f",
        "sed -n 'w out' f",
        "sed -n 's/a/b/w out' f",
        "sed -Ei s/a/b/ f",
        "sed -ni 1p f",
        "sed -n /x/p f",
        "sed -n 1p f g",
        "sed -n 1p -- f",
        "sed 1p f",
    ),
    *_ours(
        False,
        "sed -n 1p '--expression=e id'",
        "sed -n 1p -fscript.sed",
        "sed -n 1p -i",
        why="Codex gap: its sed form allows any fourth word; -fFILE or --expression=... adds a "
        "script (e, w) and turns 1p into a file name",
    ),
    *_ours(True, "sed -n 5p", "sed -n 10,20p notes.txt", 'sed -n "3p" x'),
    # GNU long-option abbreviations, clusters, --
    *_ours(
        False,
        "sort --out=F data",
        "sort --o F data",
        "sort --compress-prog=sh data",
        "sort -T /tmp data",
        "sort -rnoF data",
        "date --se=2020-01-01",
        "date -s 2020-01-01",
        "date 010100002020",
        "date -- 0101",
        "hostname --fil=/etc/hn",
        "hostname --b",
        "hostname -- evil",
        "file --comp -m magic",
        "file -zC",
        "tree -R -H . -L 1",
        "tree -aoout.txt",
        "base64 --out=x",
    ),
    *_ours(
        False,
        "uniq -- IN -OUT",
        "uniq IN OUT",
        why="stricter: Codex's uniq takes any arguments; a second operand is the file it writes",
    ),
    *_ours(
        True,
        "sort -- -o",
        "sort -t, -k2 data",
        "date +%s",
        "date -d yesterday +%F",
        "date",
        "hostname -f",
        "file -b x",
        "uniq -f 1 in",
        "uniq -c",
        "tree -L 2",
        "base64 -d x",
    ),
    # git: every form asks (the repository's config can name programs git runs)
    *_ours(
        False,
        "git diff --textconv",
        "git diff --textc",
        "git diff --ext-diff",
        "git diff --ext",
        "git log --outp=x",
        "git log --exec=x",
        "git log --output x",
        "git show --open-files-in-pager=x",
        "git -c core.pager=evil log",
        "git -c alias.status=!id status",
        "git -c diff.external=x diff",
        "git -p log",
        "git --paginate log",
        "git --no-pager -c core.fsmonitor=x status",
        "git grep -O foo",
        "git config core.pager",
        "git stash list",
        "git branch -D x",
        "git branch --list x",
        "git show HEAD@{1}",
        # what an earlier version of this check let run unasked (a planted core.fsmonitor
        # runs on git status, a diff driver's textconv on git diff, log -p and show)
        "git diff --text",
        "git diff --no-textconv --no-ext-diff",
        "git log -p --output-indicator-new=+",
        "git status --porcelain",
        "git log --oneline -5 HEAD~1",
        "git show HEAD:README.md",
        "git show 'HEAD@{1}'",
        "git branch -a",
        "git branch '--format=%(refname)'",
        "git blame README.md",
        "git ls-files",
        "git rev-parse --show-toplevel",
        "git --no-pager --literal-pathspecs diff --stat",
        "git log -- --output=x",
        "ls && git status",
        "sh -c 'git log'",
        "/usr/bin/git status",
    ),
    # read-only programs Codex does not list
    *_ours(
        True,
        "basename a/b",
        "cmp a b",
        "column -t data",
        "df -h",
        "diff -u a b",
        "dirname a/b",
        "du -sh .",
        "egrep x data",
        "fgrep x data",
        "printenv HOME",
        "printf '%s' x",
        "readlink -f x",
        "realpath x",
        "test -d x",
        "date +%F",
        "env",
        "file x",
        "hostname",
        "sort -n data",
        "tree -L 1",
        why="more lenient: not on Codex's list; each only reads here (the options and operands "
        "that write or run something are refused)",
    ),
    # find and rg
    *_ours(False, "find . -fls out", "find . -name x -fprint out", "rg --pre=sh x"),
    *_ours(False, "rg --pre sh x", "rg -nz x", "rg --search-z x", "rg --pr sh x"),
    *_ours(True, "rg -n --pre-glob '*.gz' TODO", "rg -- --pre=x", "rg --no-search-zip x"),
    *_ours(
        False,
        "find * -name x",
        "rg foo *",
        "sed -n 1p *.txt",
        "sort *",
        "git log *",
        "uniq *",
        why="stricter: a glob may expand to a file named like an option (-delete, -i, "
        "--output=F), so globs are allowed only for programs that are safe with any arguments",
    ),
    *_ours(True, "ls *.py", "wc -l src/*.py", "cat ~/.bashrc", "cat {a,b}", "grep -n x [ab].py"),
    # quoting and characters sh and the parser could read differently
    *_ours(
        False,
        "cat $'x\\x27; id'",
        "echo $'\\n'",
        'echo $"x"',
        "ca\\\nt x",
        "ls\\\n-la",
        "\\ cat x",
        "cat\\\tx",
        "find . \\-delete",
        "echo a\\ b",
        "ls\r-la",
        "cat x\r; id",
        "cat\x00; id",
        "ls\x0b-la",
        "ls\x0c-la",
        "cat\u00a0x",
        "cat\u200bx",
        "cat x\u2028id",
        "cat x\u3000y",
        "'ls' -la",
        "ca't' x",
        '"sed" -n 1p f',
        "ls |& cat",
        "! ls",
        "[ -e x ]",
        "{ ls; }",
        "ls &",
        "ls && ",
        "ls ;; pwd",
        "time ls",
        "exec ls",
        "command ls",
        "a=b",
        "FOO=1 ls",
        "ls 2>&1",
        "cat <<< x",
        "cat <(ls)",
        "cat < /etc/passwd",
        "ls >| x",
        "ls &> x",
        "echo ${x:-y}",
        "echo $((1+1))",
        "echo `id`",
        'ls "$(id)"',
        'grep "a$b" f',
    ),
    *_ours(
        True,
        "ls \\\n -la",
        "ls\t-la",
        "ls;",
        "ls\nwc -l x",
        'grep "a\\\\b" f',
        "grep 'a$' f",
        "cat 文档.txt",
        "grep 'café' menu.txt",
        'echo "it\'s" \'say "hi"\'',
        "cat -- -x",
        "cd /etc && cat hosts",
    ),
    # unicode lookalikes are other programs or plain operands
    *_ours(False, "ｌｓ", "ls；rm x", "sed −i 1p f", "rm -rf ∕"),
    # env, xargs, wrappers and paths
    *_ours(False, "env ls", "env -i sh", "ls | xargs rm", "xargs cat", "sudo ls", "nohup ls"),
    *_ours(
        False,
        "/bin/ls",
        "./cat x",
        "/bin/bash -lc ls",
        why="stricter: a program given by path is not known safe (Codex matches the base name, "
        "so a planted ./cat passes)",
    ),
    *_ours(True, "env", "printenv", "echo hi", "printf '%s\\n' a", "test -e x", "true"),
    # bash -lc wrappers: only a single wrapper around a plain script
    *_ours(True, "bash -c 'ls && pwd'", "sh -c 'cat x'", "bash -lc 'ls *.py'"),
    *_ours(
        False,
        "bash -lc 'ls' extra",
        "bash -lc 'bash -lc ls'",
        "bash -lc 'ls x#; touch f'",
        "bash -lc 'ls $(id)'",
        "bash -xc ls",
        "bash -lc ''",
        "ls && bash -lc ls",
        "bash -lc 'cat {a,b}' && sort *",
    ),
    # length
    *_ours(False, "cat " + "a" * (64 * 1024)),
    *_ours(True, "ls && " * 10_000 + "ls"),
]

SAFE_CASES = CODEX_SAFE + CODEX_EARLIER_GIT + ATTACKS

# ----------------------------------------------------------------------------------------------
# is_dangerous_command.rs (current: rm with a force option, through sudo, anywhere in a script)
# ----------------------------------------------------------------------------------------------
DANGEROUS_CASES: list[Case] = [
    *_codex("rm_rf_is_dangerous", True, argv("rm", "-rf", "/")),
    *_codex("rm_f_is_dangerous", True, argv("rm", "-f", "/")),
    *_codex(
        "forced_rm_variants_are_dangerous",
        True,
        argv("/bin/rm", "-fr", "/tmp/example"),
        argv("rm", "-r", "-f", "/tmp/example"),
        argv("rm", "--force", "/tmp/example"),
        argv("rm", "/tmp/example", "-f"),
        argv("sudo", "rm", "-rf", "/tmp/example"),
    ),
    *_codex(
        "forced_rm_in_complex_shell_syntax_is_dangerous",
        True,
        argv("bash", "-lc", "printf x | rm -rf /tmp/example"),
        argv("bash", "-lc", "if test -d /tmp/example; then rm --force /tmp/example; fi"),
        argv("bash", "-lc", 'rm -rf "$TARGET" >/dev/null'),
        argv("bash", "-lc", 'for target in /tmp/a /tmp/b; do rm -r -f "$target"; done'),
        argv("bash", "-lc", 'echo "$(rm -rf /tmp/example)"'),
        argv(
            "bash",
            "-lc",
            "for a in '-C5a25KeRr' '--' '--json' '--bogus'; do HOME=$(mktemp -d)"
            ' MDE_URL=http://127.0.0.1:1 MDE_TOKEN=x node cli/mde.cjs ls "$a"'
            " >/tmp/mde-review-out 2>/tmp/mde-review-err; code=$?;"
            " printf '%s\\t%s\\t%s\\n' \"$a\" \"$code\" \"$(tr '\\n' ' ' </tmp/mde-review-err)\";"
            ' rm -rf "$HOME"; done',
        ),
    ),
    *_codex(
        "non_forced_or_non_literal_rm_is_not_dangerous",
        False,
        argv("rm", "-r", "/tmp/example"),
        argv("rm", "--", "-f"),
        argv("bash", "-lc", "echo 'rm -rf /tmp/example'"),
        argv("bash", "-lc", "cmd=rm; $cmd -rf /tmp/example"),
        argv("bash", "-lc", "if then rm -rf /tmp/example"),
    ),
    *_codex_earlier("(command_might_be_dangerous: sudo)", True, argv("sudo", "rm", "-rf", "/")),
    *_codex_earlier(
        "(command_might_be_dangerous: bash -lc)", True, argv("bash", "-lc", "ls && rm -rf /")
    ),
    *_codex(
        "(git removed from the list, #11510)",
        False,
        argv("git", "reset", "--hard"),
        argv("git", "push", "--force", "origin", "main"),
        argv("git", "branch", "-D", "feature"),
        argv("git", "clean", "-fdx"),
        argv("git", "rm", "-f", "x"),
    ),
    *_ours(False, "rm x", "rm -r build", "rm -i x", "echo rm -rf /", "rm -- -f", "ls -f", ""),
    *_ours(
        True,
        "rm -fr x",
        "rm -r -f x",
        "rm -Rf x",
        "rm --force x",
        "rm x -f",
        "/bin/rm -rf x",
        "rm -rf x 2>/dev/null",
        'rm -rf "$HOME"',
        "echo $(rm -rf /)",
        "(cd / && rm -rf x)",
        "for f in a; do rm -f $f; done",
        '"rm" -rf x',
        "ls && rm -rf x &",
        "rm -rf x #",
        "ls " + "a" * (64 * 1024) + "; rm -rf x",
    ),
    *_ours(
        True,
        "rm --forc x",
        "rm --no-preserve-root -r /",
        "ls | xargs rm -f",
        "find . -exec rm -rf {} +",
        "sudo -u root rm -rf /",
        "env rm -rf x",
        "timeout 5 rm -rf x",
        "r\\m -rf x",
        "sh -c 'rm -rf x'",
        "bash -c \"sh -c 'rm -f x'\"",
        "rm -rf 'unbalanced",
        "bash -c \"rm -r$'\\x66' x\"",
        why="broader: Codex looks for rm (or a bare sudo rm) with -f or --force in a script it "
        "can parse; here also behind wrappers (env, timeout, xargs, find -exec, sudo with "
        "options), in nested sh -c scripts, spelled --forc, $'\\x66' or r\\m, with "
        "--no-preserve-root, and in a line that does not parse",
    ),
]

# ----------------------------------------------------------------------------------------------
# bash.rs: the plain-command parser (script -> words, or None)
# ----------------------------------------------------------------------------------------------
W = list[list[str]]
PARSE_CASES: list[tuple[str, W | None, str]] = [
    ("ls -1", [["ls", "-1"]], "codex:accepts_single_simple_command"),
    (
        "ls && pwd; echo 'hi there' | wc -l",
        [["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"]],
        "codex:accepts_multiple_commands_with_allowed_operators",
    ),
    ('echo "hello world"', [["echo", "hello world"]], "codex:extracts_double_and_single_quoted"),
    ("echo 'hi there'", [["echo", "hi there"]], "codex:extracts_double_and_single_quoted"),
    (
        'git commit -m "line1\nline2"',
        [["git", "commit", "-m", "line1\nline2"]],
        "codex:accepts_double_quoted_strings_with_newlines",
    ),
    ('echo "/usr"\'/\'"local"/bin', [["echo", "/usr/local/bin"]], "codex:mixed_quote_concat"),
    ("echo '/usr'\"/\"'local'/bin", [["echo", "/usr/local/bin"]], "codex:mixed_quote_concat"),
    ('echo "hi ${USER}"', None, "codex:rejects_double_quoted_strings_with_expansions"),
    ('echo "$HOME"', None, "codex:rejects_double_quoted_strings_with_expansions"),
    ("echo 123 456", [["echo", "123", "456"]], "codex:accepts_numbers_as_words"),
    ("(ls)", None, "codex:rejects_parentheses_and_subshells"),
    ("ls || (pwd && echo hi)", None, "codex:rejects_parentheses_and_subshells"),
    ("ls > out.txt", None, "codex:rejects_redirections_and_unsupported_operators"),
    ("echo hi & echo bye", None, "codex:rejects_redirections_and_unsupported_operators"),
    ("echo $(pwd)", None, "codex:rejects_command_and_process_substitutions_and_expansions"),
    ("echo `pwd`", None, "codex:rejects_command_and_process_substitutions_and_expansions"),
    ("echo $HOME", None, "codex:rejects_command_and_process_substitutions_and_expansions"),
    ('echo "hi $USER"', None, "codex:rejects_command_and_process_substitutions_and_expansions"),
    ("FOO=bar ls", None, "codex:rejects_variable_assignment_prefix"),
    ("ls &&", None, "codex:rejects_trailing_operator_parse_error"),
    ("&& ls", None, "codex:rejects_empty_command_position_with_leading_operator"),
    ("ls ;; pwd", None, "codex:rejects_empty_command_position_with_double_separator"),
    ("ls | | wc", None, "codex:rejects_empty_command_position_with_empty_pipeline_segment"),
    ('rg -n "foo" -g"*.py"', [["rg", "-n", "foo", "-g*.py"]], "codex:concatenated_flag_and_value"),
    (
        "grep -n 'pattern' -g'*.txt'",
        [["grep", "-n", "pattern", "-g*.txt"]],
        "codex:accepts_concatenated_flag_with_single_quotes",
    ),
    ('rg -g"$VAR" pattern', None, "codex:rejects_concatenation_with_variable_substitution"),
    ('rg -g"${VAR}" pattern', None, "codex:rejects_concatenation_with_variable_substitution"),
    ('rg -g"$(pwd)" pattern', None, "codex:rejects_concatenation_with_command_substitution"),
    (
        "rg -g\"$(echo '*.py')\" pattern",
        None,
        "codex:rejects_concatenation_with_command_substitution",
    ),
    # Codex's heredoc tests are for its prefix-rule parser; as plain commands they are rejected
    ("python3 <<'PY'\nprint('hello')\nPY", None, "codex:single_command_prefix_supports_heredoc"),
    ("python3 << PY\nprint('hello')\nPY", None, "codex:single_command_prefix_supports_heredoc"),
    ("echo hello > /tmp/out.txt", None, "codex:single_command_prefix_rejects_non_heredoc"),
    ('python3 <<< "$(rm -rf /)"', None, "codex:single_command_prefix_rejects_herestring"),
    ("echo $((1<<2))", None, "codex:single_command_prefix_rejects_arithmetic_shift"),
    # ours
    ("cat x#; ls", [["cat", "x#"], ["ls"]], "ours: # inside a word is part of it"),
    ("ls # c", None, "ours: a comment"),
    ("ls\nrm x", [["ls"], ["rm", "x"]], "ours: a newline separates commands (as in Codex)"),
    ("ls\rfoo", None, "ours: tree-sitter splits at CR, sh does not"),
    ('echo "a\\"b" "a\\qb" "a\\$b"', [["echo", 'a"b', "a\\qb", "a$b"]], 'ours: escapes in ""'),
    ("echo a\\ b", None, "ours (stricter than Codex, which keeps the raw a\\ b)"),
    ("\\ a", None, "ours: tree-sitter skips a backslash before a blank; sh reads ' a'"),
    ("\\\tls", None, "ours: tree-sitter skips a backslash before a blank; sh reads '\\tls'"),
    ("ls\\\n-la", None, "ours: a line continuation joins the words: sh reads ls-la"),
    ("ls \\\n -la", [["ls", "-la"]], "ours: a line continuation between blanks"),
    ("'ls' x", None, "codex: the program must be an unquoted word"),
    ("", [], "ours: nothing to run"),
]
