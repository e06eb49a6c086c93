package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Memory;
import dev.sandjar.quickjs.internal.EngineGlue;
import java.nio.charset.StandardCharsets;

/**
 * Typed calls into the engine's {@code QTS_*} exports (contract: quickjs-emscripten's {@code
 * c/interface.c}). Every {@code int} here that names memory is a raw wasm pointer; none leaves this
 * package. Not thread-safe: only the engine thread calls it.
 */
final class Ffi {
    final Memory memory;
    private final Instance instance;

    private final ExportFunction malloc;
    private final ExportFunction free;
    final ExportFunction throwValue;
    final ExportFunction newError;
    final ExportFunction setMemoryLimit;
    final ExportFunction setMaxStackSize;
    final ExportFunction getUndefined;
    final ExportFunction getNull;
    final ExportFunction getFalse;
    final ExportFunction getTrue;
    final ExportFunction newRuntime;
    final ExportFunction freeRuntime;
    final ExportFunction newContext;
    final ExportFunction freeContext;
    final ExportFunction freeValue;
    final ExportFunction freeValueRuntime;
    final ExportFunction freeCString;
    final ExportFunction dupValue;
    final ExportFunction newObject;
    final ExportFunction newObjectProto;
    final ExportFunction newArray;
    final ExportFunction newArrayBuffer;
    final ExportFunction newFloat64;
    final ExportFunction getFloat64;
    final ExportFunction newString;
    final ExportFunction getString;
    final ExportFunction getArrayBuffer;
    final ExportFunction getArrayBufferLength;
    final ExportFunction isJobPending;
    final ExportFunction executePendingJob;
    final ExportFunction getProp;
    final ExportFunction getPropNumber;
    final ExportFunction setProp;
    final ExportFunction defineProp;
    final ExportFunction call;
    final ExportFunction resolveException;
    final ExportFunction eval;
    final ExportFunction typeOf;
    final ExportFunction getGlobalObject;
    final ExportFunction newPromiseCapability;
    final ExportFunction promiseState;
    final ExportFunction promiseResult;
    final ExportFunction newFunction;
    final ExportFunction newSymbol;
    final ExportFunction argvGet;
    final ExportFunction enableInterruptHandler;
    final ExportFunction enableModuleLoader;
    final ExportFunction disableModuleLoader;
    final ExportFunction writeObject;
    final ExportFunction readObject;

    Ffi(Instance instance, EngineGlue glue) {
        this.instance = instance;
        this.memory = instance.memory();
        malloc = fn(glue, "malloc");
        free = fn(glue, "free");
        throwValue = fn(glue, "QTS_Throw");
        newError = fn(glue, "QTS_NewError");
        setMemoryLimit = fn(glue, "QTS_RuntimeSetMemoryLimit");
        setMaxStackSize = fn(glue, "QTS_RuntimeSetMaxStackSize");
        getUndefined = fn(glue, "QTS_GetUndefined");
        getNull = fn(glue, "QTS_GetNull");
        getFalse = fn(glue, "QTS_GetFalse");
        getTrue = fn(glue, "QTS_GetTrue");
        newRuntime = fn(glue, "QTS_NewRuntime");
        freeRuntime = fn(glue, "QTS_FreeRuntime");
        newContext = fn(glue, "QTS_NewContext");
        freeContext = fn(glue, "QTS_FreeContext");
        freeValue = fn(glue, "QTS_FreeValuePointer");
        freeValueRuntime = fn(glue, "QTS_FreeValuePointerRuntime");
        freeCString = fn(glue, "QTS_FreeCString");
        dupValue = fn(glue, "QTS_DupValuePointer");
        newObject = fn(glue, "QTS_NewObject");
        newObjectProto = fn(glue, "QTS_NewObjectProto");
        newArray = fn(glue, "QTS_NewArray");
        newArrayBuffer = fn(glue, "QTS_NewArrayBuffer");
        newFloat64 = fn(glue, "QTS_NewFloat64");
        getFloat64 = fn(glue, "QTS_GetFloat64");
        newString = fn(glue, "QTS_NewString");
        getString = fn(glue, "QTS_GetString");
        getArrayBuffer = fn(glue, "QTS_GetArrayBuffer");
        getArrayBufferLength = fn(glue, "QTS_GetArrayBufferLength");
        isJobPending = fn(glue, "QTS_IsJobPending");
        executePendingJob = fn(glue, "QTS_ExecutePendingJob");
        getProp = fn(glue, "QTS_GetProp");
        getPropNumber = fn(glue, "QTS_GetPropNumber");
        setProp = fn(glue, "QTS_SetProp");
        defineProp = fn(glue, "QTS_DefineProp");
        call = fn(glue, "QTS_Call");
        resolveException = fn(glue, "QTS_ResolveException");
        eval = fn(glue, "QTS_Eval");
        typeOf = fn(glue, "QTS_Typeof");
        getGlobalObject = fn(glue, "QTS_GetGlobalObject");
        newPromiseCapability = fn(glue, "QTS_NewPromiseCapability");
        promiseState = fn(glue, "QTS_PromiseState");
        promiseResult = fn(glue, "QTS_PromiseResult");
        newFunction = fn(glue, "QTS_NewFunction");
        newSymbol = fn(glue, "QTS_NewSymbol");
        argvGet = fn(glue, "QTS_ArgvGetJSValueConstPointer");
        enableInterruptHandler = fn(glue, "QTS_RuntimeEnableInterruptHandler");
        enableModuleLoader = fn(glue, "QTS_RuntimeEnableModuleLoader");
        disableModuleLoader = fn(glue, "QTS_RuntimeDisableModuleLoader");
        writeObject = fn(glue, "QTS_bjson_encode");
        readObject = fn(glue, "QTS_bjson_decode");
    }

    Instance instance() {
        return instance;
    }

    private ExportFunction fn(EngineGlue glue, String cName) {
        return instance.export(glue.export(cName));
    }

    int call(ExportFunction f, long... args) {
        return (int) f.apply(args)[0];
    }

    void callVoid(ExportFunction f, long... args) {
        f.apply(args);
    }

    /** Allocates {@code size} bytes in guest memory; throws when the guest heap is exhausted. */
    int malloc(int size) {
        int ptr = (int) malloc.apply(size)[0];
        if (ptr == 0 && size > 0) {
            throw new JsMemoryException(
                    "guest memory exhausted allocating "
                            + size
                            + " bytes (memory "
                            + memory.pages()
                            + " of at most "
                            + memory.maximumPages()
                            + " pages)");
        }
        return ptr;
    }

    void free(int ptr) {
        if (ptr != 0) {
            free.apply(ptr);
        }
    }

    /** Copies bytes into fresh guest memory with a NUL after them; the caller frees it. */
    int copyIn(byte[] bytes) {
        int ptr = malloc(bytes.length + 1);
        memory.write(ptr, bytes, 0, bytes.length);
        memory.writeByte(ptr + bytes.length, (byte) 0);
        return ptr;
    }

    int cString(String s) {
        return copyIn(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads a NUL-terminated UTF-8 string. */
    String readCString(int ptr) {
        int end = ptr;
        while (memory.read(end) != 0) {
            end++;
        }
        return new String(memory.readBytes(ptr, end - ptr), StandardCharsets.UTF_8);
    }

    int readI32(int ptr) {
        return memory.readInt(ptr);
    }

    long readI64(int ptr) {
        return memory.readLong(ptr);
    }
}
