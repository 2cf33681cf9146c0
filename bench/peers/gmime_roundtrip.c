/* gmime_roundtrip: GMime 3 parses a MIME file and writes it back, the peer of `mhtml repair`
 * (bench/mhtml_repair.sh times the two).
 *
 *   gmime_roundtrip IN OUT      prints parts=N bytes=M
 *
 * IN through a GMimeStreamMmap (GMime's fastest input: bodies stay ranges of the mapping),
 * g_mime_parser_construct_message, then g_mime_object_write_to_stream of the whole message
 * with GMIME_NEWLINE_FORMAT_DOS into a GMimeStreamBuffer over a GMimeStreamFs of OUT (the
 * shared kit's gmime_pack writes the same way). GMime writes each part's body as it was
 * parsed when its encoding is unchanged (no decode, no re-encode): the cheapest round trip
 * it has. N counts the leaves (GMimePart) and M the octets written.
 */
#include <fcntl.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static void count_leaf(GMimeObject* parent, GMimeObject* part, gpointer data) {
    (void)parent;
    if (GMIME_IS_PART(part)) ++*(unsigned long long*)data;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gmime_roundtrip IN OUT\n");
        return 2;
    }
    g_mime_init();
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    GMimeStream* in = g_mime_stream_mmap_new(fd, PROT_READ, MAP_PRIVATE);
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    g_mime_stream_mmap_set_owner(GMIME_STREAM_MMAP(in), TRUE);
    GMimeParser* parser = g_mime_parser_new_with_stream(in);
    GMimeMessage* message = g_mime_parser_construct_message(parser, NULL);
    if (!message) {
        fprintf(stderr, "%s: GMime found no message\n", argv[1]);
        return 1;
    }
    int out_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out_fd < 0) {
        perror(argv[2]);
        return 1;
    }
    GMimeStream* fs = g_mime_stream_fs_new(out_fd);
    GMimeStream* out = g_mime_stream_buffer_new(fs, GMIME_STREAM_BUFFER_BLOCK_WRITE);
    GMimeFormatOptions* format = g_mime_format_options_new();
    g_mime_format_options_set_newline_format(format, GMIME_NEWLINE_FORMAT_DOS);
    ssize_t written = g_mime_object_write_to_stream(GMIME_OBJECT(message), format, out);
    int rc = 0;
    if (written < 0 || g_mime_stream_flush(out) != 0) {
        perror(argv[2]);
        rc = 1;
    }
    unsigned long long leaves = 0;
    if (GMIME_IS_MULTIPART(message->mime_part))
        g_mime_multipart_foreach(GMIME_MULTIPART(message->mime_part), count_leaf, &leaves);
    else if (GMIME_IS_PART(message->mime_part))
        leaves = 1;
    printf("parts=%llu bytes=%lld\n", leaves, (long long)written);
    g_mime_format_options_free(format);
    g_object_unref(out);
    g_object_unref(fs);
    g_object_unref(message);
    g_object_unref(parser);
    g_object_unref(in);
    g_mime_shutdown();
    return rc;
}
