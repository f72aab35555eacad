package io.cyclium.testing;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A database of its own per test, closed after it: for tests of statements that read the whole
 * schema (a timer's scan of every due row, the workflow pulse), which another test's rows would
 * disturb. Register it as an instance field with {@code @RegisterExtension}.
 */
public final class OwnDatabases implements AfterEachCallback {

    private final List<AutoCloseable> opened = new ArrayList<>();

    public TestJpa open(TestDatabase.Vendor vendor) {
        TestDatabase database = TestDatabase.create(vendor);
        opened.add(database);
        TestJpa db = new TestJpa(database);
        opened.add(0, db);
        return db;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        opened.clear();
    }
}
