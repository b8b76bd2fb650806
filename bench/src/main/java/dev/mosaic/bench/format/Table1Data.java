package dev.mosaic.bench.format;

import dev.mosaic.bench.progress.Progress;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.Version;

/**
 * The data of the YoctoDB paper's Table 1: {@value #DOCUMENTS} documents whose field {@code f} is
 * the hex MD5 of {@code id % 10}; the id is the payload (ours) or a stored field (Lucene). Both are
 * cached under {@link BenchDataRoot}.
 */
final class Table1Data {
  static final int DOCUMENTS = 1_000_000;
  static final String FIELD = "f";
  static final Schema SCHEMA =
      Schema.builder().version(1).field(FIELD, FieldType.STRING, FieldRole.FILTERABLE).build();

  private Table1Data() {}

  /** The 10 distinct values of {@code f}, for {@code id % 10} = 0..9. */
  static List<String> values() {
    return IntStream.range(0, 10).mapToObj(Table1Data::md5Hex).toList();
  }

  static String md5Hex(int i) {
    try {
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      return HexFormat.of()
          .formatHex(md5.digest(Integer.toString(i).getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Our database file, built when missing. */
  static Path oursFile() throws IOException {
    Path dir =
        BenchDataRoot.get().resolve("table1").resolve("ours-" + FormatEngineFingerprint.get());
    return BenchDataRoot.cached(
            dir,
            tmp -> {
              List<String> values = values();
              DatabaseBuilder builder = DatabaseBuilder.create(SCHEMA);
              Progress progress = Progress.start("table1 ours", DOCUMENTS, "documents");
              for (int id = 0; id < DOCUMENTS; id++) {
                builder.add(
                    Document.builder(SCHEMA)
                        .add(FIELD, values.get(id % 10))
                        .payload(intBytes(id))
                        .build());
                progress.advance();
              }
              builder.writeTo(tmp.resolve("table1.mosaic"));
              progress.done();
            })
        .resolve("table1.mosaic");
  }

  /** The Lucene index directory (one segment), built when missing. */
  static Path luceneDirectory() throws IOException {
    Path dir = BenchDataRoot.get().resolve("table1").resolve("lucene-" + Version.LATEST);
    return BenchDataRoot.cached(
        dir,
        tmp -> {
          List<String> values = values();
          try (MMapDirectory directory = new MMapDirectory(tmp);
              IndexWriter writer =
                  new IndexWriter(
                      directory,
                      new IndexWriterConfig()
                          .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                          .setRAMBufferSizeMB(256))) {
            Progress progress = Progress.start("table1 lucene", DOCUMENTS, "documents");
            for (int id = 0; id < DOCUMENTS; id++) {
              org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
              doc.add(new StringField(FIELD, values.get(id % 10), Field.Store.NO));
              doc.add(new StoredField("id", id));
              writer.addDocument(doc);
              progress.advance();
            }
            progress.note("merging to one segment");
            writer.forceMerge(1);
            writer.commit();
            progress.done();
          }
        });
  }

  private static byte[] intBytes(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }
}
