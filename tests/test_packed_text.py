"""Big texts packed for the front end (explorer/present/packed_text.py): each line a template and its numbers'
differences, so the 80 alike layers of a model's texts gzip ~5x smaller; every text reads back exactly."""

import gzip
import json

from frontend_side import unpack, unpack_texts

from explorer.present.packed_text import PACK_OVER, pack, pack_lines, pack_texts

# the text and packed form tests/frontend/packed.test.js unpacks with the front end's code
TEXT = "buf1 = op1(x)\nbuf2 = op2(buf1)\n\nbuf3 = op3(buf2)  # 007 1e-06\nbuf10 = op3(buf9)  # 007 1e-06\nreturn buf10"
PACKED = {"$lines": {"t": ["buf\x00 = op\x00(x)", "buf\x00 = op\x00(buf\x00)", "",
                           "buf\x00 = op\x00(buf\x00)  # \x00\x00\x00 \x00e-\x00\x00", "return buf\x00"],
                     "l": "0 1 1\n1 2 2 1\n2\n3 3 3 2 0 0 7 1 0 6\n3 7 0 7 0 0 0 0 0 0\n4 10"}}


def layers(n):
    """A loop-level IR of ``n`` alike layers, each with its own buffer and op numbers."""
    layer = ("op{o}: SchedulerNode(ComputedBuffer)\nop{o}.writes = [MemoryDep('buf{b}', c0, {{c0: 256}})]\n"
             "    buf{b}.layout = FixedLayout('cpu', torch.float32, size=[2, 8, 16], stride=[128, 16, 1])\n"
             "        load = ops.load('buf{p}', get_index)\n        constant = ops.constant(1e-06, torch.float32)\n")
    return "".join(layer.format(o=3 * i, b=5 * i + 7, p=5 * i + 2) for i in range(n))


def test_the_front_ends_example_packs_to_the_same_form():
    assert pack_lines(TEXT) == PACKED
    assert unpack(PACKED) == TEXT


def test_a_text_of_many_alike_layers_packs_small_and_reads_back_exactly():
    text = layers(400)
    packed = pack(text)
    assert packed is not None and unpack(packed) == text
    assert len(packed["$lines"]["t"]) == 6  # one template per line of a layer, and the last (empty) line
    plain, small = (len(gzip.compress(json.dumps(x).encode())) for x in (text, packed))
    assert small * 4 < plain, (small, plain)


def test_short_texts_unalike_texts_and_texts_holding_the_mark_stay_as_they_are():
    assert pack(layers(3)) is None  # short
    unalike = "\n".join(chr(0x4E00 + i) * 40 for i in range(PACK_OVER // 40 + 10))
    assert pack(unalike) is None
    assert pack(layers(400) + "\x00") is None


def test_every_long_text_of_a_document_is_packed_and_comes_back():
    doc = {"capture": {"compilations": [{"ir": [{"text": layers(400)}], "small": "x", "n": 3,
                                         "parts": [layers(400), "y"]}]}}
    want = json.loads(json.dumps(doc))
    pack_texts(doc)
    comp = doc["capture"]["compilations"][0]
    assert "$lines" in comp["ir"][0]["text"] and "$lines" in comp["parts"][0] and comp["parts"][1] == "y"
    assert unpack_texts(doc) == want


def test_a_live_widgets_texts_are_packed_only_when_they_add_up_to_more_than_its_bound():
    """Under the bound the kernel sends the texts faster than they are packed and unpacked: they travel as they
    are; over it (an 80-layer model's stages), every long text is packed."""
    from explorer.widget import WIDGET_PACK_OVER

    text = layers(400)
    few = {"a": [text, "y"]}
    assert pack_texts(few, total_over=len(text)) == {"a": [text, "y"]}
    many = {"a": [text] * (WIDGET_PACK_OVER // len(text) + 1), "b": {"c": text}}
    pack_texts(many, total_over=WIDGET_PACK_OVER)
    assert all("$lines" in t for t in many["a"]) and "$lines" in many["b"]["c"]
    assert unpack_texts(many) == {"a": [text] * len(many["a"]), "b": {"c": text}}
