package dev.sandjar.server.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.sandjar.host.InvalidRequestException;
import java.util.List;

/**
 * JSON Schema validation (networknt json-schema-validator). A schema without {@code $schema} is
 * read as draft 2020-12; one that names another draft (4, 6, 7, 2019-09) is read as that draft.
 * Remote {@code $ref}s are not fetched: the registry resolves only what the schema holds.
 */
final class JsonSchemas {
    static final ObjectMapper JSON = new ObjectMapper();

    private static final SchemaRegistry REGISTRY =
            SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private JsonSchemas() {}

    /**
     * @throws InvalidRequestException naming {@code what} when the schema does not parse
     */
    static Schema compile(String json, String what) {
        try {
            JSON.readTree(json);
            Schema s = REGISTRY.getSchema(json, InputFormat.JSON);
            s.initializeValidators();
            return s;
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException(what + " is not JSON: " + e.getOriginalMessage());
        } catch (RuntimeException e) {
            throw new InvalidRequestException(
                    what + " is not a usable JSON Schema: " + e.getMessage());
        }
    }

    /** The violations of {@code value} (a guest value) against {@code schema}; empty when valid. */
    static List<String> violations(Schema schema, Object value) {
        String json;
        try {
            json = JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return List.of("the value cannot be written as JSON: " + e.getOriginalMessage());
        }
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        return errors.stream().map(Error::toString).toList();
    }
}
