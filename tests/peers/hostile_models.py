"""Hostile-name models for test_output_peers (issue 26): hostile_models.py DIR

Writes into DIR, each under a file name that is itself hostile (a Latin-1 byte,
a space, XML specials):
  hostile.bvh   joint names in Latin-1, with XML, JSON and CSV specials, control
                characters, broken UTF-8, U+FFFE/U+FFFF (well-formed UTF-8 that is
                no XML character), a name of the longest length BVH allows,
                duplicates, format directives, CDATA and comment ends
  hostile.urdf  link, joint, material, visual and collision names with the same
                specials as XML allows them (entities, &#10;, tab), spaces, braces,
                a 5000-character name, a link and a joint of the same name
  latin1.urdf   a document declared ISO-8859-1 with Latin-1 names
Prints one line per model: PATH:STEM:WITH_MOTION (output_peers.sh's format).
"""
import os
import sys
from xml.sax.saxutils import quoteattr

out_dir = sys.argv[1]
# file names: a Latin-1 byte (not UTF-8), a space, XML specials; no ':' (the list's separator)
stem_bytes = b"h\xe9 <&\"'x"

BVH_NAMES = [
    b"\xe9paule",                                 # Latin-1
    b"a<b>&c\"d'e\\f",                            # XML and JSON specials
    b"x\x01y\x7f\x85",                            # C0, DEL and C1 control characters
    b"L" * 512,                                   # the longest name BVH allows (KG_LIMIT_BVH_NAME)
    b"dup", b"dup",                               # duplicates
    b"comma,semi;quote\"",                        # CSV specials
    b"%s%n%d",                                    # format directives
    b"]]>--<!--",                                 # CDATA and comment ends
    b"\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80",     # broken UTF-8, a surrogate, past U+10FFFF
    b"\xef\xbf\xbe\xef\xbf\xbf",                  # U+FFFE U+FFFF
    b"{brace}",                                   # a brace in the name
    "épaule手🤖".encode(),                        # valid UTF-8
]


def bvh():
    out = [b"HIERARCHY\nROOT Hips\n{\n OFFSET 0 90 0\n"
           b" CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"]
    for n in BVH_NAMES:
        out.append(b" JOINT " + n + b"\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                   b"  End Site\n  {\n   OFFSET 0 5 0\n  }\n }\n")
    out.append(b"}\nMOTION\nFrames: 3\nFrame Time: 0.0333333\n")
    nch = 6 + 3 * len(BVH_NAMES)
    for f in range(3):
        out.append((" ".join("%g" % ((i * 7 + f) % 11 - 5) for i in range(nch)) + "\n").encode())
    return b"".join(out)


URDF_NAMES = ["a<b>&c\"d'e\\f", "with space", "comma,semi;quote\"", "%s%n%d", "]]>--<!--",
              "épaule手🤖", "L" * 5000, "tab\there", "line\nend\r", "{brace}", "brace{", "same",
              "\u0085nel\u2028ls"]


def urdf():
    inertia = '<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>'
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<robot name=%s>" % quoteattr("r&<\"'\\,{}\n")]
    out.append(' <material name=%s><color rgba="1 0 0 1"/></material>' % quoteattr(URDF_NAMES[0]))
    out.append(' <link name="base">%s</link>' % inertia)
    parent = "base"
    for n in URDF_NAMES:
        out.append(" <link name=%s>%s<visual name=%s><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
                   "<material name=%s/></visual><collision name=%s><geometry><sphere radius=\"0.05\"/></geometry>"
                   "</collision></link>" % (quoteattr(n), inertia, quoteattr(n + "_v"), quoteattr(URDF_NAMES[0]),
                                            quoteattr(n + "_c")))
        joint = n if n == "same" else n + "_j"  # a link and a joint of one name
        out.append(" <joint name=%s type=\"revolute\"><parent link=%s/><child link=%s/><origin xyz=\"0 0 0.1\"/>"
                   "<axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>"
                   % (quoteattr(joint), quoteattr(parent), quoteattr(n)))
        parent = n
    out.append("</robot>")
    return ("\n".join(out) + "\n").encode("utf-8")  # quoteattr writes \n, \r and \t as references


def latin1():
    text = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<robot name="caf\xe9">\n'
            ' <link name="\xe9paule"/><link name="b\xe4r"/>\n'
            ' <joint name="gel\xe9nk" type="continuous"><parent link="\xe9paule"/><child link="b\xe4r"/>'
            '<origin xyz="0 0 0.3"/></joint>\n</robot>\n')
    return text.encode("latin-1")


for ext, data, stem, motion in (("bvh", bvh(), "hostile_bvh", 1), ("urdf", urdf(), "hostile_urdf", 0),
                                ("urdf", latin1(), "latin1_urdf", 0)):
    path = os.path.join(os.fsencode(out_dir), stem_bytes + b"_" + stem.encode() + b"." + ext.encode())
    with open(path, "wb") as f:
        f.write(data)
    sys.stdout.buffer.write(path + b":" + stem.encode() + b":" + str(motion).encode() + b"\n")
