# banned: sim/base/banned.h (force-included in every project source) makes a
# call of each banned function a compile error, while the names stay usable
# in strings and comments and the allowed replacements compile; and no
# project source calls one (the build would fail, this says which).
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
H="$SRC/sim/base/banned.h"
cat >"$T/ok.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char b[16];
    snprintf(b, sizeof b, "%s", "strcpy atoi"); /* strcpy(b, x) in a comment */
    return argc > 1 ? (int)strtol(argv[1], NULL, 10) : (int)strlen(b) - 11;
}
C
expect_status 0 "allowed calls compile" "$CC" -D_GNU_SOURCE -include "$H" -Wall -Werror -o "$T/ok" "$T/ok.c"
for call in 'strcpy(b, "x")' 'strcat(b, "x")' 'strncpy(b, "x", 2)' 'strncat(b, "x", 1)' \
            'sprintf(b, "%d", 1)' 'vsprintf(b, "x", ap)' 'strtok(b, ",")' 'strtok_r(b, ",", &p)' \
            'atoi(b)' 'atol(b)' 'atoll(b)' 'gets(b)' 'localtime(&t)' 'gmtime(&t)' 'ctime(&t)' \
            'asctime(NULL)'; do
  cat >"$T/bad.c" <<C
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void f(va_list ap);
void f(va_list ap)
{
    char b[16] = "1", *p = NULL;
    time_t t = 0;
    (void)ap; (void)p; (void)t;
    (void)$call;
}
C
  expect_status 1 "banned: $call" "$CC" -D_GNU_SOURCE -include "$H" -c -o "$T/bad.o" "$T/bad.c"
  stderr_has "banned: $call" "sorry_.*_is_a_banned_function"
done
finish
