package dev.mosaic.format.impl;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Placeholder until the writer lands: collects documents, cannot write yet. */
public final class DatabaseWriter implements DatabaseBuilder {
  private final Schema schema;
  private final List<Document> documents = new ArrayList<>();

  public DatabaseWriter(Schema schema) {
    this.schema = schema;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public DatabaseBuilder add(Document document) {
    if (!document.schema().equals(schema)) {
      throw new IllegalArgumentException("document was built for another schema");
    }
    documents.add(document);
    return this;
  }

  @Override
  public int documentCount() {
    return documents.size();
  }

  @Override
  public void writeTo(WritableByteChannel channel) throws IOException {
    throw new UnsupportedOperationException("writer not implemented yet");
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    throw new UnsupportedOperationException("writer not implemented yet");
  }

  @Override
  public void writeTo(Path file) throws IOException {
    throw new UnsupportedOperationException("writer not implemented yet");
  }

  @Override
  public byte[] toByteArray() {
    throw new UnsupportedOperationException("writer not implemented yet");
  }
}
