package io.cyclium.config;

import java.util.Optional;

/**
 * Where raw property values come from. In the container this is MicroProfile Config; tests pass a
 * map. Keeping the reader independent of the container lets every validation rule be unit tested.
 */
@FunctionalInterface
public interface ConfigSource {
    Optional<String> get(String property);
}
