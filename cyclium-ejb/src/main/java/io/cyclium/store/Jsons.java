package io.cyclium.store;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;
import java.io.Reader;
import java.io.StringReader;

/**
 * JSON-P builders and readers from one provider, looked up once. {@code jakarta.json.Json}'s
 * static factories look the provider up on every call (a service-loader scan of the class path);
 * on the episode path that was most of the JVM's CPU.
 */
public final class Jsons {

    private Jsons() {
    }

    /** Initialised on first use, from the application's class loader (lazy holder idiom). */
    private static final class Holder {
        static final JsonProvider PROVIDER = JsonProvider.provider();
    }

    public static JsonProvider provider() {
        return Holder.PROVIDER;
    }

    public static JsonObjectBuilder object() {
        return Holder.PROVIDER.createObjectBuilder();
    }

    public static JsonObjectBuilder object(jakarta.json.JsonObject copyOf) {
        return Holder.PROVIDER.createObjectBuilder(copyOf);
    }

    public static JsonArrayBuilder array() {
        return Holder.PROVIDER.createArrayBuilder();
    }

    public static JsonReader reader(Reader reader) {
        return Holder.PROVIDER.createReader(reader);
    }

    public static JsonReader reader(String text) {
        return reader(new StringReader(text));
    }

    public static JsonReader reader(java.io.InputStream in) {
        return Holder.PROVIDER.createReader(in);
    }

    public static JsonString value(String value) {
        return Holder.PROVIDER.createValue(value);
    }

    public static JsonNumber value(long value) {
        return Holder.PROVIDER.createValue(value);
    }

    public static JsonNumber value(int value) {
        return Holder.PROVIDER.createValue(value);
    }
}
