/* gmime_parts: how GMime 3 reads one MIME file, for tests/pack/gmime_pack.py.
 *
 *   gmime_parts FILE
 *
 * Parses FILE with g_mime_parser_construct_message (RFC 2045 compliance mode, a warning
 * callback that records every issue the parser reports) and prints, one line per item,
 * tab-separated:
 *   warning <TAB> CODE <TAB> OFFSET <TAB> ITEM     every parser warning (GMimeParserWarning)
 *   leaf <TAB> TYPE/SUBTYPE <TAB> CONTENT-LOCATION <TAB> CONTENT-ID <TAB> SIZE <TAB> SHA-256
 *                                                  every leaf in tree order, its body decoded
 *                                                  from its Content-Transfer-Encoding
 * Exit 0, or 2 if FILE cannot be read or parsed at all. A missing header prints as "-".
 */
#include <fcntl.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_warning(gint64 offset, GMimeParserWarning code, const gchar* item, gpointer data) {
    (void)data;
    printf("warning\t%d\t%lld\t%s\n", (int)code, (long long)offset, item ? item : "-");
}

static const char* or_dash(const char* s) {
    return s && *s ? s : "-";
}

static void print_leaf(GMimeObject* parent, GMimeObject* part, gpointer data) {
    (void)parent;
    (void)data;
    if (!GMIME_IS_PART(part)) return;
    GMimeContentType* ct = g_mime_object_get_content_type(part);
    GMimeDataWrapper* content = g_mime_part_get_content(GMIME_PART(part));
    GByteArray* bytes = g_byte_array_new();
    if (content) {
        GMimeStream* mem = g_mime_stream_mem_new_with_byte_array(bytes);
        g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
        g_mime_data_wrapper_write_to_stream(content, mem);
        g_object_unref(mem);
    }
    gchar* sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes->data, bytes->len);
    printf("leaf\t%s/%s\t%s\t%s\t%u\t%s\n", or_dash(g_mime_content_type_get_media_type(ct)),
           or_dash(g_mime_content_type_get_media_subtype(ct)),
           or_dash(g_mime_part_get_content_location(GMIME_PART(part))),
           or_dash(g_mime_part_get_content_id(GMIME_PART(part))), bytes->len, sum);
    g_free(sum);
    g_byte_array_free(bytes, TRUE);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gmime_parts FILE\n");
        return 2;
    }
    g_mime_init();
    GMimeParserOptions* options = g_mime_parser_options_new();
    g_mime_parser_options_set_rfc2047_compliance_mode(options, GMIME_RFC_COMPLIANCE_STRICT);
    g_mime_parser_options_set_warning_callback(options, on_warning, NULL);
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    GMimeStream* stream = g_mime_stream_fs_new(fd); /* owns fd */
    GMimeParser* parser = g_mime_parser_new_with_stream(stream);
    GMimeMessage* message = g_mime_parser_construct_message(parser, options);
    if (!message) {
        fprintf(stderr, "%s: GMime could not parse a message\n", argv[1]);
        return 2;
    }
    g_mime_message_foreach(message, print_leaf, NULL);
    g_object_unref(message);
    g_object_unref(parser);
    g_object_unref(stream);
    g_mime_parser_options_free(options);
    g_mime_shutdown();
    return 0;
}
