/* gmime_read: GMime 3's end-to-end reading of MIME files, the peer of bench/mhtml_read.
 *
 *   gmime_read [--fresh] FILE|DIR...      prints parts=N bytes=M
 *
 * For each file: a GMimeStreamMmap over the file, g_mime_parser_construct_message (the
 * parser keeps bodies as ranges of the mapped stream, GMime's fastest way to read a file),
 * then a GMimePartIter over the whole tree (into attached messages too). Every leaf
 * (GMimePart) is decoded with g_mime_data_wrapper_write_to_stream, which applies its
 * Content-Transfer-Encoding, into a GMimeStreamMem. N counts the leaves, M their decoded
 * octets.
 *
 * By default every leaf is decoded into one memory buffer that is emptied, not freed,
 * between leaves: mhtml_read does the same with its std::string. --fresh decodes each leaf
 * into a new GMimeStreamMem instead, as a program that keeps each body would (and as the
 * shared kit's gmime_read does); on large bodies that costs a page fault per 4 KiB.
 */
#include <fcntl.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "each_file.h"

static unsigned long long leaves, decoded;
static int fresh;
static GByteArray *reused;
static GMimeStream *reused_stream;

static void decode_leaf(GMimePart *part)
{
    GMimeDataWrapper *content = g_mime_part_get_content(part);
    leaves++;
    if (!content)
        return;
    if (fresh) {
        GMimeStream *mem = g_mime_stream_mem_new();
        g_mime_data_wrapper_write_to_stream(content, mem);
        decoded += g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem))->len;
        g_object_unref(mem);
    } else {
        g_byte_array_set_size(reused, 0); /* keeps the allocation */
        g_mime_stream_reset(reused_stream);
        g_mime_data_wrapper_write_to_stream(content, reused_stream);
        decoded += reused->len;
    }
}

static int read_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    GMimeStream *stream = g_mime_stream_mmap_new(fd, PROT_READ, MAP_PRIVATE);
    if (!stream) {
        perror(path);
        close(fd);
        return 1;
    }
    g_mime_stream_mmap_set_owner(GMIME_STREAM_MMAP(stream), TRUE); /* closes fd */
    GMimeParser *parser = g_mime_parser_new_with_stream(stream);
    GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
    int rc = 0;
    if (!message) {
        fprintf(stderr, "%s: GMime found no message\n", path);
        rc = 1;
    } else {
        GMimePartIter *it = g_mime_part_iter_new(GMIME_OBJECT(message));
        if (g_mime_part_iter_is_valid(it)) {
            do {
                GMimeObject *current = g_mime_part_iter_get_current(it);
                if (GMIME_IS_PART(current))
                    decode_leaf(GMIME_PART(current));
            } while (g_mime_part_iter_next(it));
        }
        g_mime_part_iter_free(it);
        g_object_unref(message);
    }
    g_object_unref(parser);
    g_object_unref(stream);
    return rc;
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--fresh") == 0) {
        fresh = 1;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: gmime_read [--fresh] FILE|DIR...\n");
        return 2;
    }
    g_mime_init();
    reused = g_byte_array_new();
    reused_stream = g_mime_stream_mem_new_with_byte_array(reused);
    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(reused_stream), FALSE);
    int rc = 0;
    for (int i = first; i < argc; i++)
        rc |= each_file(argv[i], read_file);
    printf("parts=%llu bytes=%llu\n", leaves, decoded);
    g_object_unref(reused_stream);
    g_byte_array_free(reused, TRUE);
    g_mime_shutdown();
    return rc;
}
