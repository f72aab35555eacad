package io.cyclium.testing;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.cyclium.testing.TestDatabase.Vendor;

/**
 * The test databases of one test class: at most one per vendor, created on first use and dropped
 * after the class. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestDatabases databases = new TestDatabases();
 *
 * @ParameterizedTest
 * @EnumSource(Vendor.class)
 * void something(Vendor vendor) throws SQLException {
 *     try (Connection c = databases.get(vendor).connect()) { ... }
 * }
 * }</pre>
 *
 * Tests of one class share its database, so each test uses keys of its own (random ones).
 */
public final class TestDatabases implements AfterAllCallback {

    private final Map<Vendor, TestDatabase> open = new EnumMap<>(Vendor.class);
    private final Map<Vendor, TestJpa> jpa = new EnumMap<>(Vendor.class);

    /** This class's database for {@code vendor}, created and migrated on first use. */
    public synchronized TestDatabase get(Vendor vendor) {
        return open.computeIfAbsent(vendor, TestDatabase::create);
    }

    /** JPA (the product's entities, resource-local transactions) over this class's database. */
    public synchronized TestJpa jpa(Vendor vendor) {
        return jpa.computeIfAbsent(vendor, v -> new TestJpa(get(v)));
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        List<RuntimeException> failures = new ArrayList<>();
        jpa.values().forEach(TestJpa::close);
        jpa.clear();
        for (TestDatabase db : open.values()) {
            try {
                db.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        open.clear();
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }
}
