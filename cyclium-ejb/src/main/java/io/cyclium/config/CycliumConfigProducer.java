package io.cyclium.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Reads MicroProfile Config once per application. Environment variables map onto the properties
 * the MicroProfile way ({@code CYCLIUM_WORK_CLAIMS_LEASE_SECONDS} → {@code cyclium.work-claims.lease-seconds}).
 */
@ApplicationScoped
public class CycliumConfigProducer {

    private volatile CycliumConfig config;

    /**
     * Dependent scope because a record cannot be proxied; the value itself is read and validated
     * once and shared, so every bean sees the same configuration.
     */
    @Produces
    public CycliumConfig cycliumConfig() {
        CycliumConfig current = config;
        if (current == null) {
            synchronized (this) {
                if (config == null) {
                    org.eclipse.microprofile.config.Config mp = ConfigProvider.getConfig(CycliumConfigProducer.class.getClassLoader());
                    config = CycliumConfigReader.read(property -> mp.getOptionalValue(property, String.class));
                }
                current = config;
            }
        }
        return current;
    }
}
