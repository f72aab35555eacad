package io.cyclium.schema;

import io.cyclium.store.DatabaseVendor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

/**
 * The one place the database vendor comes from: {@link SchemaMigrator} detects it from the
 * datasource before anything else starts, and every bean that writes vendor-specific SQL injects
 * {@link DatabaseVendor} instead of reaching into the migrator.
 */
@ApplicationScoped
public class DatabaseVendorProducer {

    @Inject
    SchemaMigrator migrator;

    @Produces
    @Dependent
    DatabaseVendor vendor() {
        return migrator.vendor();
    }
}
