/* A bot in C that speaks the arena's JSON-lines protocol directly (docs/PROTOCOL.md).
 *
 * It reads one message per line on stdin and answers on stdout, flushing each line:
 *   {"type":"hello",...}   -> {"type":"hello","name":"c-random","version":"1.0.0","protocol":1}
 *   {"type":"decide",...}  -> {"type":"action","id":ID,"action":"ONE OF legal"}
 *   {"type":"bye"}         -> exit
 * Everything else (match_start, events, match_end, error) needs no answer.  It needs no
 * JSON library: it finds the few fields it uses by their names.  Its choice is random,
 * seeded by the match id, so a match can be replayed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t next_random(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The value of the string field "name" in line (escapes kept as written), or NULL. */
static char *string_field(const char *line, const char *name, size_t *length) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":\"", name);
    const char *start = strstr(line, key);
    if (!start) return NULL;
    start += strlen(key);
    const char *end = start;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    *length = (size_t)(end - start);
    return (char *)start;
}

/* The number in the field "name" of line, or -1. */
static long number_field(const char *line, const char *name) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *start = strstr(line, key);
    return start ? strtol(start + strlen(key), NULL, 10) : -1;
}

/* Answers a decide request with a random entry of its "legal" array. */
static void decide(const char *line) {
    const char *legal = strstr(line, "\"legal\":[");
    if (!legal) return;
    legal += strlen("\"legal\":[");
    const char *starts[512];
    size_t lengths[512];
    int count = 0;
    const char *p = legal;
    while (*p && *p != ']' && count < 512) {
        if (*p == '"') {
            const char *end = ++p;
            while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
            starts[count] = p;
            lengths[count++] = (size_t)(end - p);
            p = *end ? end + 1 : end;
        } else {
            p++;
        }
    }
    if (count == 0) return;
    int pick = (int)(next_random() % (uint64_t)count);
    printf("{\"type\":\"action\",\"id\":%ld,\"action\":\"%.*s\"}\n", number_field(line, "id"),
           (int)lengths[pick], starts[pick]);
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        size_t length;
        char *type = string_field(line, "type", &length);
        if (!type) continue;
        if (length == 5 && strncmp(type, "hello", 5) == 0) {
            printf("{\"type\":\"hello\",\"name\":\"c-random\",\"version\":\"1.0.0\",\"protocol\":1}\n");
            fflush(stdout);
        } else if (length == 11 && strncmp(type, "match_start", 11) == 0) {
            char *id = string_field(line, "match_id", &length);
            rng_state = 88172645463325252ULL;
            for (size_t i = 0; id && i < length; i++) rng_state = (rng_state ^ (unsigned char)id[i]) * 1099511628211ULL;
            if (rng_state == 0) rng_state = 1;
        } else if (length == 6 && strncmp(type, "decide", 6) == 0) {
            decide(line);
        } else if (length == 3 && strncmp(type, "bye", 3) == 0) {
            break;
        }
    }
    free(line);
    return 0;
}
