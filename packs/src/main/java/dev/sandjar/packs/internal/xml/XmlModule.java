package dev.sandjar.packs.internal.xml;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.util.List;
import java.util.Map;

/**
 * The {@code xml} host module, declared by {@code @sandjar/xml}: XML read by the JDK's SAX parser,
 * hardened ({@link SafeXml}), into plain objects, and plain objects written back as XML. An element
 * is {@code { name, attributes, children }} where a child is an element or a string.
 */
public final class XmlModule {
    static final String ID = "xml";
    static final String PACKAGE = "@sandjar/xml";

    private XmlModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("XML to plain objects and back; no DOCTYPE, no external anything")
                .export(
                        Operation.builder("parse")
                                .param(Param.any("xml"))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(XmlModule::parse)
                                .build())
                .export(
                        Operation.builder("build")
                                .param(Param.object("element").maxLength(3))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(XmlModule::build)
                                .build())
                .build();
    }

    private static Object parse(OperationCall call) {
        Object input = call.arg(0);
        byte[] bytes = HostArgs.bytesOrNull(input);
        if (bytes != null && bytes.length > HostLimits.MAX_BYTES) {
            throw HostWork.tooLarge(
                    call.where(),
                    "xml is " + bytes.length + " bytes; at most " + HostLimits.MAX_BYTES);
        }
        String text = bytes == null ? HostArgs.text(call, 0, "xml") : null;
        HostArgs.Options o = HostArgs.options(call, 1, "trim");
        boolean trim = o.bool("trim", true);
        return HostWork.submit(
                call,
                w -> bytes != null ? SafeXml.parse(bytes, trim, w) : SafeXml.parse(text, trim, w));
    }

    private static Object build(OperationCall call) {
        Map<String, Object> element = call.object(0);
        HostArgs.Options o = HostArgs.options(call, 1, "declaration", "indent");
        boolean declaration = o.bool("declaration", false);
        int indent = (int) o.integer("indent", 0, 0, 8);
        return HostWork.submit(
                call,
                w -> {
                    XmlWriter writer = new XmlWriter(w, indent);
                    if (declaration) {
                        writer.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
                    }
                    writer.element(element, 0, "element");
                    String out = writer.text();
                    w.output(out.length());
                    return out;
                });
    }

    static BridgeException malformed(String where, String message) {
        return new BridgeException("XmlError", "XML_MALFORMED", where + ": " + message);
    }

    /** The children list of an element object, checked. */
    static List<?> children(String where, Map<?, ?> element, String path) {
        Object c = element.get("children");
        if (c == null) {
            return List.of();
        }
        if (!(c instanceof List<?> list)) {
            throw HostWork.invalid(where, path + ".children must be an array");
        }
        return list;
    }
}
