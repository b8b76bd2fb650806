package dev.mosaic.bench.indexer;

import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Partition build rates on one thread, through {@link DatabaseUpdate} as a rebuild uses it:
 *
 * <ul>
 *   <li><b>full build</b>: per partition, map every stored offer's bytes to a document (as a
 *       rebuild does, {@link SerializedOfferDocuments}), {@link DatabaseUpdate#fresh} + add, write
 *       the file; documents per second;
 *   <li><b>merge</b>: per partition, open the full build's file as the base, keep every document
 *       whose offer did not change, add the changed offers (parsed and mapped), write the file;
 *       carried-over documents per second.
 * </ul>
 *
 * The full build runs twice and its second pass counts. The merge, a few times cheaper, runs {@value
 * #MERGE_WARMUP_PASSES} warm-up passes and then {@value #MERGE_MEASURED_PASSES} measured ones,
 * whose median counts: single merge passes varied by a factor of up to 1.7 from one pass to the
 * next (the JIT early on, then garbage collection), so one pass is not a rate. 
