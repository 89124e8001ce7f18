// The target of `texture_sink.wgsl`: an rgba16float storage texture.
@group(0) @binding(1) var dst: texture_storage_2d<rgba16float, write>;
