package io.cyclium.demo;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.store.UniqueInsert;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Optional;

/** The demo's resource table: usage against a limit, per resource. */
@ApplicationScoped
public class DemoResources {

    public record Resource(String id, String kind, int usage, int limit, long version) {
        public boolean breached() {
            return usage > limit;
        }
    }

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    public List<Resource> all() {
        return tx.inNewTransaction(DemoResources::readAll);
    }

    @SuppressWarnings("unchecked")
    static List<Resource> readAll(EntityManager em) {
        List<Object[]> rows = em.createNativeQuery("SELECT resource_id, kind, usage_value, limit_value, version"
                + " FROM cyclium_demo_resources ORDER BY resource_id").getResultList();
        return rows.stream().map(DemoResources::row).toList();
    }

    public Optional<Resource> find(String id) {
        return all().stream().filter(r -> r.id().equals(id)).findFirst();
    }

    private static Resource row(Object[] r) {
        return new Resource((String) r[0], (String) r[1], ((Number) r[2]).intValue(), ((Number) r[3]).intValue(),
                ((Number) r[4]).longValue());
    }

    /**
     * Inserts the resource unless it exists. Every demo node seeds the same set at boot, often at
     * the same moment: the primary key decides, and losing is not an error.
     */
    public void seed(String id, String kind, int usage, int limit) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("resource_id", id);
        c.put("kind", kind);
        c.put("usage_value", usage);
        c.put("limit_value", limit);
        c.put("version", 0);
        c.put("updated_at", NativeSql.raw(vendor.utcNow()));
        tx.run(em -> UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_demo_resources", c)));
    }

    /** Sets a resource's usage; returns the new version (the event id of the change). */
    public long setUsage(String id, int usage) {
        return tx.inNewTransaction(em -> {
            em.createNativeQuery("UPDATE cyclium_demo_resources SET usage_value = ?1, version = version + 1, updated_at = "
                    + vendor.utcNow() + " WHERE resource_id = ?2").setParameter(1, usage).setParameter(2, id)
                    .executeUpdate();
            return ((Number) em.createNativeQuery("SELECT version FROM cyclium_demo_resources WHERE resource_id = ?1")
                    .setParameter(1, id).getSingleResult()).longValue();
        });
    }
}
