package io.cyclium.retention;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestJpa;
import java.time.Duration;

/**
 * A child JVM for {@link RetentionKillTest}: runs the archive step of one run against an existing
 * test database and prints {@code chunk <n>} before each chunk, until it finishes or is killed.
 * Arguments: vendor, database name, run id, chunk size.
 */
public final class RetentionWorker {

    private RetentionWorker() {
    }

    public static void main(String[] args) {
        TestDatabase.Vendor vendor = TestDatabase.Vendor.valueOf(args[0]);
        try (TestDatabase db = TestDatabase.attach(vendor, args[1]); TestJpa jpa = new TestJpa(db)) {
            RetentionChunks chunks = new RetentionChunks(jpa, new RetentionStore(jpa.vendor()));
            int[] n = {0};
            long done = chunks.runStep(args[2], RetentionStep.ARCHIVE_EPISODES, Duration.ofDays(7), Integer.parseInt(args[3]), () -> {
                System.out.println("chunk " + (++n[0]));
                System.out.flush();
            });
            System.out.println("finished " + done);
        }
    }
}
